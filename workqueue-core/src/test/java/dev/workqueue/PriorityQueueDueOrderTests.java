package dev.workqueue;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory queues move what fell due before every change that lines an item up (the
 * {@code done} of a dirty item included), without a thread of their own, so a delayed
 * item lines up at the moment it became ready even when nobody was waiting: before an
 * item lined up after that moment, and aged from it for the starvation guard. (Nothing
 * reads {@code size()} in between: that would move it too.)
 */
class PriorityQueueDueOrderTests {

	private final FakeClock clock = new FakeClock();

	private WorkQueues.Builder<String> builder() {
		return WorkQueues.<String>builder().clock(this.clock);
	}

	@Test
	void aDueItemLinesUpBeforeAnItemAddedAfterItFellDue() throws Exception {
		PriorityQueue<String> queue = builder()
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter(this.clock));
		queue.addAfter("due", Duration.ofSeconds(1));
		this.clock.step(Duration.ofSeconds(2));
		queue.add("later");
		assertThat(queue.get()).isEqualTo("due");
		assertThat(queue.get()).isEqualTo("later");
	}

	@Test
	void aDueItemIsAgedFromWhenItFellDueForTheStarvationGuard() throws Exception {
		PriorityQueue<String> queue = builder().starvationTimeout(Duration.ofSeconds(5))
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter(this.clock));
		queue.addAfter("low", Duration.ofSeconds(1), 0);
		this.clock.step(Duration.ofSeconds(20));
		queue.add("high", 5);
		this.clock.step(Duration.ofSeconds(1));
		assertThat(queue.getWithPriority().item()).as("ready for 20 s, past the 5 s guard").isEqualTo("low");
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "PRIORITY" })
	void aDueItemLinesUpBeforeADirtyItemItsDoneLinesUpAfterwards(QueueKind kind) throws Exception {
		DelayingQueue<String> queue = (DelayingQueue<String>) kind.build(builder());
		queue.add("dirty");
		assertThat(queue.get()).isEqualTo("dirty");
		queue.add("dirty");
		queue.addAfter("due", Duration.ofSeconds(1));
		this.clock.step(Duration.ofSeconds(2));
		queue.done("dirty");
		assertThat(queue.get()).as("ready since 1 s, before the done at 2 s").isEqualTo("due");
		assertThat(queue.get()).isEqualTo("dirty");
	}

	@Test
	void theStarvationGuardSeesADueItemBehindADirtyOnesDoneAsOlder() throws Exception {
		PriorityQueue<String> queue = builder().starvationTimeout(Duration.ofSeconds(5))
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter(this.clock));
		queue.add("dirty", 5);
		assertThat(queue.get()).isEqualTo("dirty");
		queue.add("dirty", 5);
		queue.addAfter("low", Duration.ofSeconds(1), 0);
		this.clock.step(Duration.ofSeconds(20));
		queue.done("dirty");
		assertThat(queue.getWithPriority().item()).as("ready for 19 s, past the 5 s guard, and the oldest")
			.isEqualTo("low");
	}

	@Test
	void aDirtyItemComesBackWithThePriorityOfItsPendingWaitIfHigher() throws Exception {
		PriorityQueue<String> queue = builder()
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter(this.clock));
		queue.add("x", 1);
		queue.add("y", 2);
		assertThat(queue.get()).isEqualTo("y");
		queue.addAfter("y", Duration.ofHours(1), 9);
		queue.add("y", 0);
		queue.done("y");
		assertThat(queue.getWithPriority()).isEqualTo(new PriorityQueue.Prioritized<>("y", 9));
	}

}
