package dev.workqueue.console;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the console reads the queues: one overview per second at most, and a queue it
 * cannot read shown with its error.
 */
class ConsoleQueuesTests {

	private final InspectedQueue orders = new InspectedQueue("orders", true);

	private final FakeClock clock = new FakeClock();

	private final TestRegistry registry = new TestRegistry(Map.of("orders", this.orders, "broken",
			new InspectedQueue("broken", true).unreachable("store out of reach")));

	private final ConsoleQueues queues = new ConsoleQueues(this.registry, null, List.of(),
			new RateSampler(this.registry, new StatsQueueCounters(this.registry), this.clock),
			new ItemIds(new SecureRandom()), new WorkQueueConsoleProperties(), this.clock);

	@Test
	void overviewIsReadAtMostOncePerSecond() {
		ConsoleOverview first = this.queues.overview();
		assertThat(first.time()).isEqualTo("1970-01-01T00:00:00Z");
		assertThat(depthOfOrders(first)).isZero();
		this.orders.add("order-1");
		this.clock.step(Duration.ofMillis(999));
		assertThat(this.queues.overview()).isSameAs(first);
		this.clock.step(Duration.ofMillis(1));
		ConsoleOverview second = this.queues.overview();
		assertThat(depthOfOrders(second)).isOne();
		assertThat(second.time()).isEqualTo("1970-01-01T00:00:01Z");
	}

	@Test
	void refreshForgetsTheOverview() {
		this.queues.overview();
		this.orders.add("order-1");
		this.queues.refresh();
		assertThat(depthOfOrders(this.queues.overview())).isOne();
	}

	@Test
	void queueThatCannotBeReadShowsWhy() {
		ConsoleQueue broken = this.queues.overview().queues().get(0);
		assertThat(broken.name()).isEqualTo("broken");
		assertThat(broken.error()).isEqualTo("cannot read the queue: store out of reach");
		assertThat(broken.depth()).isNull();
		assertThat(broken.processing()).isNull();
		assertThat(broken.waiting()).isNull();
		assertThat(broken.givenUp()).isNull();
		assertThat(broken.paused()).isNull();
		assertThat(broken.backend()).isEqualTo("memory");
	}

	private static int depthOfOrders(ConsoleOverview overview) {
		return overview.queues().get(1).depth();
	}

}
