package dev.workqueue.console;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.spring.worker.ItemLogging;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a queue's page and an action read on the request's thread: the page its items
 * only, once its queue has a reading; an action its queue's figures afresh.
 */
class ConsolePageFiguresTests {

	private final InspectedQueue orders = new InspectedQueue("orders", true).put("order-1", ItemState.READY);

	private final FakeClock clock = new FakeClock();

	private final TestRegistry registry = new TestRegistry(Map.of("orders", this.orders));

	private final WorkQueueConsoleProperties properties = new WorkQueueConsoleProperties();

	private final ItemIds ids = new ItemIds(new SecureRandom());

	private final ConsoleQueues queues = new ConsoleQueues(this.registry, null, List.of(),
			new RateSampler(this.registry, new StatsQueueCounters(this.registry), this.clock), this.ids,
			this.properties, this.clock);

	private final ConsoleFigures figures = new ConsoleFigures(this.queues, this.clock);

	private final ConsoleApiController controller = new ConsoleApiController(this.queues, this.figures,
			new ConsoleActions(null, this.ids, true, ItemLogging.TEXT), false);

	@Test
	void pageTakesTheLatestFiguresAndReadsItsItems() {
		ConsoleQueue first = page();
		assertThat(first.depth()).isOne();
		assertThat(this.orders.statsReads()).isOne();
		this.orders.add("order-2");
		ConsoleQueue second = page();
		assertThat(this.orders.statsReads()).isOne();
		assertThat(second.depth()).isOne();
		assertThat(second.items().get("ready")).extracting(ConsoleItem::text).containsExactly("order-1", "order-2");
	}

	@Test
	void actionAnswersItsQueueReadAfresh() throws Exception {
		page();
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.setContentType("application/json");
		request.setContent("{\"item\":\"order-2\"}".getBytes(StandardCharsets.UTF_8));
		ConsoleQueue answer = this.controller.act("orders", "add", request).getBody();
		assertThat(answer.depth()).isEqualTo(2);
		assertThat(this.orders.statsReads()).isEqualTo(2);
		assertThat(page().depth()).isEqualTo(2);
		assertThat(this.controller.overview().getBody().queues().get(0).depth()).isEqualTo(2);
	}

	private ConsoleQueue page() {
		return this.controller.queue("orders", null, null, null, null).getBody();
	}

}
