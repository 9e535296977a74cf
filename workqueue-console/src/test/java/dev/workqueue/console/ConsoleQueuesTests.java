package dev.workqueue.console;

import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the console reads a queue's figures: a queue it cannot read shown with its error.
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
	void queueThatCannotBeReadShowsWhy() {
		ConsoleQueue broken = this.queues.describe("broken");
		assertThat(broken.name()).isEqualTo("broken");
		assertThat(broken.readAt()).isEqualTo("1970-01-01T00:00:00Z");
		assertThat(broken.error()).isEqualTo("cannot read the queue: store out of reach");
		assertThat(broken.depth()).isNull();
		assertThat(broken.processing()).isNull();
		assertThat(broken.waiting()).isNull();
		assertThat(broken.givenUp()).isNull();
		assertThat(broken.paused()).isNull();
		assertThat(broken.backend()).isEqualTo("memory");
	}

}
