package dev.workqueue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * More items due at once than a FIFO lines up per call
 * ({@link DelayingWorkQueue#DUE_BATCH}): a priority queue lines every due item up before
 * it picks, so priority, FIFO within a priority and the starvation guard hold (nothing
 * calls size() or stats(), which move all).
 */
class PriorityQueueDueBacklogTests {

	private final FakeClock clock = new FakeClock();

	private PriorityQueue<String> priorityQueue(Duration starvation) {
		WorkQueues.Builder<String> builder = WorkQueues.<String>builder().clock(this.clock);
		if (starvation != null) {
			builder.starvationTimeout(starvation);
		}
		return builder.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter(this.clock));
	}

	@Test
	void aDueHighPriorityItemIsHandedOutBeforeDueLowOnes() throws Exception {
		PriorityQueue<String> queue = priorityQueue(null);
		for (int i = 0; i < 300; i++) {
			queue.addAfter("low-" + i, Duration.ofMillis(1 + i), 0);
		}
		queue.addAfter("high", Duration.ofMillis(500), 10);
		this.clock.step(Duration.ofSeconds(1));
		// Every item is ready now; contract section 4: highest priority first.
		assertThat(queue.getWithPriority()).isEqualTo(new Prioritized<>("high", 10));
	}

	@Test
	void dueItemsLineUpBeforeAnItemOfTheSamePriorityAddedAfterTheyFellDue() throws Exception {
		PriorityQueue<String> queue = priorityQueue(null);
		for (int i = 0; i < 300; i++) {
			queue.addAfter("due-" + i, Duration.ofMillis(1 + i), 0);
		}
		this.clock.step(Duration.ofSeconds(1));
		queue.add("later", 0);
		for (int i = 0; i < 300; i++) {
			assertThat(queue.get()).as("item %d", i).isEqualTo("due-" + i);
		}
		assertThat(queue.get()).isEqualTo("later");
	}

	@Test
	void aStarvingDueItemGoesBeforeAFreshHighPriorityOne() throws Exception {
		PriorityQueue<String> queue = priorityQueue(Duration.ofSeconds(1));
		for (int i = 0; i < 300; i++) {
			queue.addAfter("due-" + i, Duration.ofMillis(1 + i), 0);
		}
		this.clock.step(Duration.ofSeconds(1));
		queue.add("x", 0); // at 1.0 s
		queue.add("high", 10); // at 1.0 s
		this.clock.step(Duration.ofMillis(900)); // now 1.9 s: due-i starving (ready >=
													// 1.6 s), x and high not
		for (int i = 0; i < 300; i++) {
			assertThat(queue.get()).as("starving item %d before anything ready for 0.9 s", i).isEqualTo("due-" + i);
		}
	}

}
