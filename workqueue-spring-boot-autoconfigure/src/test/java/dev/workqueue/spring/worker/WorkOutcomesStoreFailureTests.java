package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkItemGivenUpEvent;
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
		FailureCounts<Object> unreachable = unreachable();
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

	/**
	 * A give-up is said, kept and published before the item's history is forgotten: a
	 * store out of reach for that forget changes none of it, and the outcome stays a
	 * give-up (the item's count outlives it, and starts its next run high).
	 */
	@Test
	void aGiveUpWhoseForgetTheStoreFailsIsStillAGiveUpAndItsEventGoesOut() {
		WorkOutcomes outcomes = outcomes(shared(Set.of()), forgetFails(10));
		this.queue.takeOut("a");

		assertThat(outcomes.failed("a", 0, new IllegalStateException("boom"))).isEqualTo(WorkOutcome.GAVE_UP);

		assertThat(this.queue.events).singleElement()
			.isInstanceOfSatisfying(WorkItemGivenUpEvent.class,
					(event) -> assertThat(event.getAttempts()).isEqualTo(11));
	}

	@Test
	void aSuccessWhoseForgetTheStoreFailsIsStillDone() {
		WorkOutcomes outcomes = outcomes(shared(Set.of()), forgetFails(0));
		this.queue.takeOut("a");

		assertThat(outcomes.finished("a", 0, null)).isEqualTo(WorkOutcome.DONE);
	}

	@Test
	void aRejectedItemWhoseCountTheStoreFailsIsStillGivenUpAsAFirstAttempt() {
		WorkOutcomes outcomes = outcomes(shared(Set.of()), unreachable());
		this.queue.takeOut("a");

		assertThat(outcomes.rejected("a", new IllegalArgumentException("does not fit"))).isEqualTo(WorkOutcome.GAVE_UP);

		assertThat(this.queue.events).singleElement()
			.isInstanceOfSatisfying(WorkItemGivenUpEvent.class, (event) -> assertThat(event.getAttempts()).isOne());
	}

	/** Counts in a store out of reach: every call fails. */
	private static FailureCounts<Object> unreachable() {
		return new FailureCounts<>() {

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
	}

	/** Counts whose every item has {@code failures} failures, and whose forget fails. */
	private static FailureCounts<Object> forgetFails(int failures) {
		return new FailureCounts<>() {

			@Override
			public int countFailure(Object item) {
				return failures;
			}

			@Override
			public int failures(Object item) {
				return failures;
			}

			@Override
			public void forget(Object item) {
				throw new IllegalStateException("store out of reach");
			}

		};
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
