package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * How the workers of one queue run, as configured by {@code workqueue.defaults} and
 * {@code workqueue.queues.<name>}.
 *
 * @param concurrency threads per worker method unless its annotation says otherwise, from
 * 1 to {@value #MAX_CONCURRENCY}
 * @param maxRetries retries after an item's first failure before giving up on it, or
 * {@code -1} to retry forever
 * @param shutdownTimeout how long stopping waits for the queue to drain, zero or positive
 * @param pollTimeout how long an idle worker waits for an item before it looks at its
 * control flags again, positive
 */
public record WorkerSettings(int concurrency, int maxRetries, Duration shutdownTimeout, Duration pollTimeout) {

	/**
	 * The most worker threads a worker method may run, whether set by a property, by
	 * {@code @QueueWorker(concurrency)} or at run time: each is a platform thread with
	 * its own stack, and a typo of a few zeros would otherwise make tens of thousands.
	 */
	public static final int MAX_CONCURRENCY = 1024;

	/**
	 * Creates settings.
	 * @param concurrency threads per worker method, from 1 to {@value #MAX_CONCURRENCY}
	 * @param maxRetries retries before giving up, at least {@code -1}
	 * @param shutdownTimeout how long stopping waits, zero or positive
	 * @param pollTimeout how long an idle worker waits for an item, positive
	 * @throws IllegalArgumentException if a value is out of range
	 */
	public WorkerSettings {
		if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
			throw new IllegalArgumentException(
					"concurrency must be between 1 and " + MAX_CONCURRENCY + ", was " + concurrency);
		}
		if (maxRetries < -1) {
			throw new IllegalArgumentException("maxRetries must be >= -1, was " + maxRetries);
		}
		Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
		if (shutdownTimeout.isNegative()) {
			throw new IllegalArgumentException("shutdownTimeout must not be negative, was " + shutdownTimeout);
		}
		Objects.requireNonNull(pollTimeout, "pollTimeout");
		if (pollTimeout.isNegative() || pollTimeout.isZero()) {
			throw new IllegalArgumentException("pollTimeout must be positive, was " + pollTimeout);
		}
	}

	/**
	 * Returns whether an item that failed {@code failures} times in a row should be
	 * retried.
	 * @param failures the item's failures since its last success or give-up, including
	 * the one just seen
	 * @return {@code true} to retry, {@code false} to give up
	 */
	boolean retries(int failures) {
		return this.maxRetries == -1 || failures <= this.maxRetries;
	}

}
