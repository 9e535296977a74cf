package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.workqueue.ratelimit.MaxOfRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiterFactory;
import dev.workqueue.ratelimit.WithMaxWaitRateLimiter;

/**
 * A queue's rate limiter as its {@code rate-limiter} section describes it, copied out of
 * the properties so that it cannot change: one limiter per section given, the longest of
 * their delays when several, capped by {@code maxWait}. No section at all (as
 * {@link #DEFAULT_CONTROLLER}) means client-go's default controller rate limiter.
 * {@link #build} turns it into a limiter on any backend.
 *
 * @param exponential the per-item exponential backoff, or {@code null}
 * @param fastSlow the per-item fast-then-slow retries, or {@code null}
 * @param bucket the token bucket of all items, or {@code null}
 * @param itemBucket the token bucket of each item, or {@code null}
 * @param maxWait the longest delay, or {@code null} for no cap
 */
record RateLimiterSettings(@Nullable Exponential exponential, @Nullable FastSlow fastSlow, @Nullable Bucket bucket,
		@Nullable Bucket itemBucket, @Nullable Duration maxWait) {

	/** No {@code rate-limiter} section: client-go's default controller rate limiter. */
	static final RateLimiterSettings DEFAULT_CONTROLLER = new RateLimiterSettings(null, null, null, null, null);

	/**
	 * Copies a {@code rate-limiter} section.
	 * @param section the section, or {@code null} when there is none
	 * @return its settings
	 */
	static RateLimiterSettings of(WorkQueueProperties.@Nullable RateLimit section) {
		if (section == null) {
			return DEFAULT_CONTROLLER;
		}
		WorkQueueProperties.Exponential exponential = section.getExponential();
		WorkQueueProperties.FastSlow fastSlow = section.getFastSlow();
		return new RateLimiterSettings(
				(exponential != null) ? new Exponential(exponential.getBaseDelay(), exponential.getMaxDelay(),
						exponential.getJitter()) : null,
				(fastSlow != null)
						? new FastSlow(fastSlow.getFastDelay(), fastSlow.getSlowDelay(), fastSlow.getMaxFastAttempts())
						: null,
				Bucket.of(section.getBucket()), Bucket.of(section.getItemBucket()), section.getMaxWait());
	}

	/**
	 * Builds the limiter these settings describe with a backend's limiters: one limiter
	 * per section given, the longest of their delays when several, capped by
	 * {@code max-wait}; the default controller limiter when there is no section.
	 * @param limiters the backend's maker of the queue's limiters
	 * @return the limiter
	 */
	@SuppressWarnings("unchecked")
	RateLimiter<Object> build(RateLimiterFactory<Object> limiters) {
		List<RateLimiter<Object>> sections = new ArrayList<>();
		if (this.exponential != null) {
			sections.add(limiters.exponential(this.exponential.baseDelay(), this.exponential.maxDelay(),
					this.exponential.jitter()));
		}
		if (this.fastSlow != null) {
			sections.add(limiters.fastSlow(this.fastSlow.fastDelay(), this.fastSlow.slowDelay(),
					this.fastSlow.maxFastAttempts()));
		}
		if (this.bucket != null) {
			sections.add(limiters.bucket(this.bucket.qps(), this.bucket.burst()));
		}
		if (this.itemBucket != null) {
			sections.add(limiters.itemBucket(this.itemBucket.qps(), this.itemBucket.burst()));
		}
		RateLimiter<Object> limiter = switch (sections.size()) {
			case 0 -> limiters.defaultControllerRateLimiter();
			case 1 -> sections.get(0);
			default -> new MaxOfRateLimiter<>((RateLimiter<Object>[]) sections.toArray(new RateLimiter<?>[0]));
		};
		return (this.maxWait != null) ? new WithMaxWaitRateLimiter<>(limiter, this.maxWait) : limiter;
	}

	/**
	 * Per-item exponential backoff.
	 *
	 * @param baseDelay the delay after the first failure
	 * @param maxDelay the longest delay
	 * @param jitter the largest part of each delay cut at random, in [0, 1]
	 */
	record Exponential(Duration baseDelay, Duration maxDelay, double jitter) {

	}

	/**
	 * Per-item fast, then slow retries.
	 *
	 * @param fastDelay the delay of the first {@code maxFastAttempts} retries
	 * @param slowDelay the delay of the later ones
	 * @param maxFastAttempts the number of fast retries
	 */
	record FastSlow(Duration fastDelay, Duration slowDelay, int maxFastAttempts) {

	}

	/**
	 * A token bucket.
	 *
	 * @param qps the tokens added per second
	 * @param burst the capacity
	 */
	record Bucket(double qps, int burst) {

		static @Nullable Bucket of(WorkQueueProperties.@Nullable Bucket section) {
			return (section != null) ? new Bucket(section.getQps(), section.getBurst()) : null;
		}

	}

}
