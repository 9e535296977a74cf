package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link RateLimiter} that backs off exponentially per item, as client-go's
 * {@code ItemExponentialFailureRateLimiter}: {@link #when} returns
 * {@code baseDelay * 2^n}, where {@code n} is how many times the item failed before
 * (base, 2·base, 4·base, …), capped at {@code maxDelay}. {@link #forget} starts the item
 * over at {@code baseDelay}. Optionally, a {@link Jitter} draws each delay from
 * {@code [d * (1 - jitter), d]} instead, so that items failing together spread their
 * retries (our addition; off by default).
 * <p>
 * <b>How it works.</b> The constructor computes every distinct delay once, doubling the
 * base until it reaches the cap (at most a few dozen entries), and any further failure
 * maps to the last entry. So a million failures return {@code maxDelay}: nothing is
 * shifted or raised to a power per call and nothing overflows or wraps (unlike a shift by
 * the failure count, which repeats itself after 64 failures). A call costs one map lookup
 * and one compare-and-set and allocates nothing once the item is known.
 * <p>
 * Thread-safe and lock-free with the default in-memory {@link FailureCounts}. Every item
 * that failed keeps one small entry until it is forgotten, so callers {@link #forget}
 * items once they succeed or are given up, as with client-go.
 *
 * @param <T> the item type
 */
public final class ItemExponentialFailureRateLimiter<T> extends FailureCountingRateLimiter<T> {

	private final Duration baseDelay;

	private final Duration maxDelay;

	private final Jitter jitter;

	/**
	 * {@code delays[n]} is the delay after {@code n} earlier failures; the last is the
	 * cap.
	 */
	private final Duration[] delays;

	/**
	 * Creates a limiter whose delays start at {@code baseDelay} and double up to
	 * {@code maxDelay}.
	 * @param baseDelay the delay after the first failure, zero or positive
	 * @param maxDelay the largest delay, not less than {@code baseDelay}
	 * @throws IllegalArgumentException if a delay is negative or {@code maxDelay} is less
	 * than {@code baseDelay}
	 */
	public ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay) {
		this(baseDelay, maxDelay, Jitter.NONE);
	}

	/**
	 * Creates a limiter whose delays start at {@code baseDelay} and double up to
	 * {@code maxDelay}, each then shortened by a random part of at most {@code jitter}.
	 * @param baseDelay the delay after the first failure, zero or positive
	 * @param maxDelay the largest delay, not less than {@code baseDelay}
	 * @param jitter the largest part of a delay to cut at random, in {@code [0, 1]}; 0
	 * for client-go's exact delays
	 * @throws IllegalArgumentException if a delay is negative, {@code maxDelay} is less
	 * than {@code baseDelay}, or {@code jitter} is outside {@code [0, 1]}
	 */
	public ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay, double jitter) {
		this(baseDelay, maxDelay, jitter, FailureCounts.inMemory());
	}

	/**
	 * Creates a limiter whose delays start at {@code baseDelay} and double up to
	 * {@code maxDelay}, each then shortened by a random part of at most {@code jitter},
	 * with the failure counts kept in {@code counts} (shared by several processes, for
	 * example).
	 * @param baseDelay the delay after the first failure, zero or positive
	 * @param maxDelay the largest delay, not less than {@code baseDelay}
	 * @param jitter the largest part of a delay to cut at random, in {@code [0, 1]}
	 * @param counts where the failures are counted
	 * @throws IllegalArgumentException if a delay is negative, {@code maxDelay} is less
	 * than {@code baseDelay}, or {@code jitter} is outside {@code [0, 1]}
	 */
	public ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay, double jitter,
			FailureCounts<T> counts) {
		this(baseDelay, maxDelay, Jitter.of(jitter), counts);
	}

	ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay, Jitter jitter) {
		this(baseDelay, maxDelay, jitter, FailureCounts.inMemory());
	}

	private ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay, Jitter jitter,
			FailureCounts<T> counts) {
		super(counts);
		this.jitter = jitter;
		this.baseDelay = Preconditions.requireNonNegative(baseDelay, "baseDelay");
		this.maxDelay = Preconditions.requireNonNegative(maxDelay, "maxDelay");
		if (maxDelay.compareTo(baseDelay) < 0) {
			throw new IllegalArgumentException(
					"maxDelay must not be less than baseDelay (" + baseDelay + "), was " + maxDelay);
		}
		this.delays = doublings(baseDelay, maxDelay);
	}

	private static Duration[] doublings(Duration baseDelay, Duration maxDelay) {
		List<Duration> delays = new ArrayList<>();
		Duration delay = baseDelay;
		delays.add(delay);
		// A zero base never grows; otherwise stop once the cap is reached.
		while (!delay.isZero() && delay.compareTo(maxDelay) < 0) {
			delay = (delay.compareTo(maxDelay.minus(delay)) < 0) ? delay.plus(delay) : maxDelay;
			delays.add(delay);
		}
		return delays.toArray(new Duration[0]);
	}

	@Override
	public Duration when(T item) {
		int earlierFailures = countFailure(item);
		return this.jitter.apply(this.delays[Math.min(earlierFailures, this.delays.length - 1)]);
	}

	@Override
	public String toString() {
		return "ItemExponentialFailureRateLimiter[baseDelay=" + this.baseDelay + ", maxDelay=" + this.maxDelay
				+ ((this.jitter != Jitter.NONE) ? ", jitter=" + this.jitter.fraction() : "") + countsSuffix() + "]";
	}

}
