package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.spring.WorkResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shutdown that comes between a worker's check of the flag and its requeue of a shared
 * queue's item: the queue ignores the requeue, so the item must be handed back rather
 * than ended by the worker's {@code done}. The shutdown is made to fall exactly there.
 */
class WorkOutcomesShutdownRaceTests {

	private final SharedQueueStandIn queue = new SharedQueueStandIn();

	@Test
	void aFailedItemWhoseRequeueRacesTheShutdownIsHandedBack() {
		WorkOutcomes outcomes = outcomes(shutDownBefore(Set.of("addRateLimited", "addAfter")));
		this.queue.takeOut("a");

		assertThat(outcomes.failed("a", 0, new IllegalStateException("boom"))).isEqualTo(WorkOutcome.FAILED);

		assertThat(this.queue.real.isShuttingDown()).isTrue();
		assertThat(this.queue.handedBack).containsExactly("a after PT0.005S");
		assertThat(outcomes.refusedRequeues()).isZero();
	}

	@Test
	void aRequeueAfterThatRacesTheShutdownIsHandedBackWithItsDelay() {
		WorkOutcomes outcomes = outcomes(shutDownBefore(Set.of("addAfter")));
		this.queue.takeOut("a");

		outcomes.finished("a", 0, WorkResult.requeueAfter(Duration.ofSeconds(7)));

		assertThat(this.queue.handedBack).containsExactly("a after PT7S");
	}

	@Test
	void aRequeueTheQueueTookIsNotHandedBack() {
		WorkOutcomes outcomes = outcomes(shutDownBefore(Set.of()));
		this.queue.takeOut("a");

		outcomes.failed("a", 0, new IllegalStateException("boom"));

		assertThat(this.queue.handedBack).isEmpty();
		assertThat(this.queue.real.isShuttingDown()).isFalse();
	}

	private WorkOutcomes outcomes(RateLimitingQueue<Object> queue) {
		return this.queue.outcomes(queue, FailureCounts.inMemory());
	}

	/**
	 * Returns the queue as a shared one that shuts down just before it is asked one of
	 * {@code methods}, after the worker has read the flag.
	 */
	private RateLimitingQueue<Object> shutDownBefore(Set<String> methods) {
		return this.queue.shared((method) -> {
			if (methods.contains(method)) {
				this.queue.real.shutDown();
			}
		});
	}

}
