package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A requeue that the store or the limiter fails (a store out of reach): the item goes
 * back all the same, where the worker's {@code done} that follows would otherwise end it
 * and lose it. A shared queue gets it handed back; a queue in memory gets it added again.
 */
class WorkOutcomesStoreFailureTests {

	private final SharedQueueStandIn queue = new SharedQueueStandIn();

	@Test
	void aFailedItemWhoseRequeueTheStoreFailsIsHandedBack() {
		WorkOutcomes outcomes = outcomes(shared(Set.of("addRateLimited")), FailureCounts.inMemory());
		this.queue.takeOut("a");

		assertThat(outcomes.failed("a", 0, new IllegalStateException("boom"))).isEqualTo(WorkOutcome.FAILED);

		assertThat(this.queue.handedBack).containsExactly("a after PT0S");
	}

	@Test
	void aFailedItemWhoseFailureCountTheStoreFailsIsHandedBack() {
		FailureCounts<Object> unreachable = new FailureCounts<>() {

			@Override
			public int countFailure(Object item) {
				throw new IllegalStateException("store out of reach");
			}

			@Override
			public int failures(Object item) {
				throw new IllegalStateException("store out of reach");
			}

			@Override
			public void forget(Object item) {
				throw new IllegalStateException("store out of reach");
			}

		};
		WorkOutcomes outcomes = outcomes(shared(Set.of()), unreachable);
		this.queue.takeOut("a");

		assertThat(outcomes.failed("a", 0, new IllegalStateException("boom"))).isEqualTo(WorkOutcome.FAILED);

		assertThat(this.queue.handedBack).containsExactly("a after PT0S");
	}

	@Test
	void aRequeueAfterTheStoreFailsIsHandedBackWithItsDelay() {
		WorkOutcomes outcomes = outcomes(shared(Set.of("addAfter")), FailureCounts.inMemory());
		this.queue.takeOut("a");

		outcomes.finished("a", 0, WorkResult.requeueAfter(Duration.ofSeconds(7)));

		assertThat(this.queue.handedBack).containsExactly("a after PT7S");
	}

	@Test
	void aRequeueTheLimiterFailsInMemoryIsAddedAgainAndRunsAfterItsDone() throws InterruptedException {
		RateLimiter<Object> failing = new RateLimiter<>() {

			@Override
			public Duration when(Object item) {
				throw new IllegalStateException("limiter failed");
			}

			@Override
			public void forget(Object item) {
			}

			@Override
			public int numRequeues(Object item) {
				return 0;
			}

		};
		RateLimitingQueue<Object> queue = WorkQueues.builder().buildRateLimitingQueue(failing);
		queue.add("a");
		assertThat(queue.get()).isEqualTo("a");
		WorkOutcomes outcomes = outcomes(queue, FailureCounts.inMemory());

		outcomes.finished("a", 0, WorkResult.requeue());
		queue.done("a");

		assertThat(queue.size()).as("queued again").isOne();
	}

	private WorkOutcomes outcomes(RateLimitingQueue<Object> queue, FailureCounts<Object> counts) {
		return this.queue.outcomes(queue, counts);
	}

	/** Returns the queue as a shared one whose {@code failing} methods throw. */
	private RateLimitingQueue<Object> shared(Set<String> failing) {
		return this.queue.shared((method) -> {
			if (failing.contains(method)) {
				throw new IllegalStateException("store out of reach");
			}
		});
	}

}
