package dev.workqueue.spring;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link QueueWorker @QueueWorker} method asks to do with the item it processed. A
 * method returning {@code void} behaves as if it returned {@link #done()}.
 * <p>
 * Instances are immutable values; the three kinds are the nested records, so a result can
 * be inspected with {@code instanceof}.
 */
public sealed interface WorkResult permits WorkResult.Done, WorkResult.Requeue, WorkResult.RequeueAfter {

	/**
	 * The item is finished: its rate limiter forgets it.
	 * @return the result
	 */
	static WorkResult done() {
		return Done.INSTANCE;
	}

	/**
	 * The item should be processed again after its rate limiter's delay
	 * ({@code addRateLimited}); the backoff continues. Not a failure: it does not count
	 * towards {@code max-retries}.
	 * @return the result
	 */
	static WorkResult requeue() {
		return Requeue.INSTANCE;
	}

	/**
	 * The item should be processed again after {@code delay}: its rate limiter forgets
	 * it, then it is added with {@code addAfter}. Not a failure, and it ends the item's
	 * run of failures, as a success does.
	 * @param delay how long to wait, zero or positive
	 * @return the result
	 * @throws IllegalArgumentException if {@code delay} is negative
	 */
	static WorkResult requeueAfter(Duration delay) {
		return new RequeueAfter(delay);
	}

	/**
	 * The result of {@link WorkResult#done()}.
	 */
	record Done() implements WorkResult {

		static final Done INSTANCE = new Done();

	}

	/**
	 * The result of {@link WorkResult#requeue()}.
	 */
	record Requeue() implements WorkResult {

		static final Requeue INSTANCE = new Requeue();

	}

	/**
	 * The result of {@link WorkResult#requeueAfter(Duration)}.
	 *
	 * @param delay how long to wait before the item is processed again
	 */
	record RequeueAfter(Duration delay) implements WorkResult {

		/**
		 * Creates the result.
		 * @param delay how long to wait, zero or positive
		 * @throws IllegalArgumentException if {@code delay} is negative
		 */
		public RequeueAfter {
			Objects.requireNonNull(delay, "delay");
			if (delay.isNegative()) {
				throw new IllegalArgumentException("delay must not be negative, was " + delay);
			}
		}

	}

}
