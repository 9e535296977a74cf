package dev.workqueue.spring.worker;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * Where the workers of one queue count each item's failures for {@code max-retries}, and
 * the rate limiter the queue was built with. The count lives where the queue does: in
 * this JVM for a memory queue, in the shared store of a queue of another backend (Redis,
 * a database), so that every instance sharing the queue counts together.
 *
 * @param failures the store of failure counts
 * @param rateLimiter the queue's limiter, whose delay a failed item handed back to a
 * shared queue at shutdown waits; {@code null} when unknown (a queue the application
 * built itself), the item is then ready again at once
 */
public record FailureTracking(FailureCounts<Object> failures, @Nullable RateLimiter<Object> rateLimiter) {

	/**
	 * Creates the tracking of one queue.
	 * @param failures the store of failure counts
	 * @param rateLimiter the queue's limiter, or {@code null}
	 */
	public FailureTracking {
		Objects.requireNonNull(failures, "failures");
	}

	/**
	 * Returns the tracking of a queue the starter did not build: failures counted in this
	 * JVM, limiter unknown.
	 * @return a new tracking with an empty store
	 */
	public static FailureTracking inMemory() {
		return new FailureTracking(FailureCounts.inMemory(), null);
	}

}
