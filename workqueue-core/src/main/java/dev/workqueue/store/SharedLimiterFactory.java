package dev.workqueue.store;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.ratelimit.BucketRateLimiter;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.ItemFastSlowRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiterFactory;

/**
 * The part of a shared store's limiter builder that every store writes the same: the
 * failure limiters ({@link #exponential exponential}, {@link #fastSlow fastSlow}) over
 * the store's counts of failures, the count of failed attempts, and the rule for the
 * history's time to live. A store gives its counts by kind
 * ({@link #failureCounts(String)}; the kinds name the counts' keys or rows, so they never
 * change) and its token buckets.
 * <p>
 * Not thread-safe, as a builder is; the limiters and counts it makes are. Part of the
 * shared-store engine, used by store modules; may change before 1.0.
 *
 * @param <T> the item type
 */
public abstract class SharedLimiterFactory<T> implements RateLimiterFactory<T> {

	/** How long a failure history stays after its last failure unless set otherwise. */
	protected static final Duration DEFAULT_HISTORY_TTL = Duration.ofDays(1);

	private static final Duration MIN_HISTORY_TTL = Duration.ofSeconds(1);

	private static final Duration MAX_HISTORY_TTL = Duration.ofDays(36_525);

	/**
	 * Creates the shared part of a store's limiter builder.
	 */
	protected SharedLimiterFactory() {
	}

	/**
	 * A shared {@code baseDelay * 2^failures} limiter, capped at {@code maxDelay}, each
	 * delay then shortened by a random part of at most {@code jitter}.
	 * @param baseDelay the first delay, not negative
	 * @param maxDelay the cap, at least {@code baseDelay}
	 * @param jitter the largest part of a delay to cut at random, in {@code [0, 1]}
	 * @return the limiter
	 */
	@Override
	public RateLimiter<T> exponential(Duration baseDelay, Duration maxDelay, double jitter) {
		return new ItemExponentialFailureRateLimiter<>(baseDelay, maxDelay, jitter,
				failureCounts("failures:exponential"));
	}

	/**
	 * A shared limiter that waits {@code fastDelay} for an item's first
	 * {@code maxFastAttempts} failures, then {@code slowDelay}.
	 * @param fastDelay the short delay, not negative
	 * @param slowDelay the long delay, not negative
	 * @param maxFastAttempts how many failures get the short delay, not negative
	 * @return the limiter
	 */
	@Override
	public RateLimiter<T> fastSlow(Duration fastDelay, Duration slowDelay, int maxFastAttempts) {
		return new ItemFastSlowRateLimiter<>(fastDelay, slowDelay, maxFastAttempts,
				failureCounts("failures:fast-slow"));
	}

	/**
	 * One token bucket for every item and instance, in the store; at an infinite rate no
	 * limit, which needs no store: every reservation is ok at once, as
	 * {@link dev.workqueue.ratelimit.TokenBucket}'s.
	 * @param qps tokens per second, positive, or {@code Double.POSITIVE_INFINITY} for no
	 * limit
	 * @param burst the bucket's size, at least 1
	 * @return the limiter
	 */
	@Override
	public final RateLimiter<T> bucket(double qps, int burst) {
		return Double.isInfinite(qps) && qps > 0 ? unlimited(burst) : storeBucket(qps, burst);
	}

	/**
	 * One token bucket per item, shared by every instance, in the store; at an infinite
	 * rate no limit, as {@link #bucket}.
	 * @param qps tokens per second, positive, or {@code Double.POSITIVE_INFINITY} for no
	 * limit
	 * @param burst the bucket's size, at least 1
	 * @return the limiter
	 */
	@Override
	public final RateLimiter<T> itemBucket(double qps, int burst) {
		return Double.isInfinite(qps) && qps > 0 ? unlimited(burst) : storeItemBucket(qps, burst);
	}

	private static <T> RateLimiter<T> unlimited(int burst) {
		if (burst < 1) {
			throw new IllegalArgumentException("burst must be at least 1, was " + burst);
		}
		// One bucket for every item is as unlimited as one each, and keeps no entry per
		// item.
		return new BucketRateLimiter<>(Double.POSITIVE_INFINITY, burst);
	}

	/**
	 * The store's bucket for every item and instance.
	 * @param qps tokens per second, positive and finite
	 * @param burst the bucket's size, at least 1
	 * @return the limiter
	 */
	protected abstract RateLimiter<T> storeBucket(double qps, int burst);

	/**
	 * The store's bucket per item, shared by every instance.
	 * @param qps tokens per second, positive and finite
	 * @param burst the bucket's size, at least 1
	 * @return the limiter
	 */
	protected abstract RateLimiter<T> storeItemBucket(double qps, int burst);

	/**
	 * The count of each item's failed attempts, shared by every instance, kept beside the
	 * limiters' failure history and expiring with it: what {@code max-retries} counts
	 * across instances (the Spring starter's workers use it for shared queues). A restart
	 * of an instance does not reset it.
	 * @return the store
	 */
	@Override
	public FailureCounts<T> attempts() {
		return failureCounts("failures:attempts");
	}

	/**
	 * The store's counts of one kind of failure, shared by every instance.
	 * @param kind what the counts count ({@code failures:exponential},
	 * {@code failures:fast-slow} or {@code failures:attempts}), part of their key or row
	 * @return the counts
	 * @throws IllegalStateException if the builder lacks a required setting
	 */
	protected abstract FailureCounts<T> failureCounts(String kind);

	/**
	 * Checks a failure history's time to live, as a builder's {@code historyTtl} takes
	 * it.
	 * @param historyTtl the time to live
	 * @return the time to live
	 * @throws NullPointerException if it is {@code null}
	 * @throws IllegalArgumentException if it is under 1 second or over 100 years
	 */
	protected static Duration checkedHistoryTtl(Duration historyTtl) {
		Objects.requireNonNull(historyTtl, "historyTtl");
		if (historyTtl.compareTo(MIN_HISTORY_TTL) < 0 || historyTtl.compareTo(MAX_HISTORY_TTL) > 0) {
			throw new IllegalArgumentException(
					"historyTtl must be from 1s to " + MAX_HISTORY_TTL + ", was " + historyTtl);
		}
		return historyTtl;
	}

}
