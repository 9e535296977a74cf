package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * A {@link RateLimiter} that combines others and takes the strictest answer, as
 * client-go's {@code MaxOfRateLimiter}: {@link #when} asks every limiter (each one counts
 * the call) and returns the longest delay, {@link #numRequeues} returns the largest
 * count, and {@link #forget} is passed to all of them.
 * <p>
 * Combined with a shared {@link BucketRateLimiter}, the bucket's burst can appear to be
 * exceeded: items delayed longer by another limiter still took their token early.
 * <p>
 * Thread-safe if the limiters are; it holds no state of its own.
 *
 * @param <T> the item type
 * @see RateLimiters#defaultControllerRateLimiter()
 */
public final class MaxOfRateLimiter<T> implements RateLimiter<T> {

	private final RateLimiter<? super T>[] limiters;

	/**
	 * Creates a limiter combining {@code limiters}.
	 * @param limiters the limiters to ask, at least one, none {@code null}
	 * @throws IllegalArgumentException if {@code limiters} is empty
	 */
	@SafeVarargs
	public MaxOfRateLimiter(RateLimiter<? super T>... limiters) {
		Objects.requireNonNull(limiters, "limiters");
		if (limiters.length == 0) {
			throw new IllegalArgumentException("limiters must not be empty");
		}
		this.limiters = limiters.clone();
		for (int i = 0; i < this.limiters.length; i++) {
			Objects.requireNonNull(this.limiters[i], "limiters[" + i + "]");
		}
	}

	@Override
	public Duration when(T item) {
		Objects.requireNonNull(item, "item");
		Duration longest = Duration.ZERO;
		for (RateLimiter<? super T> limiter : this.limiters) {
			Duration delay = limiter.when(item);
			if (delay.compareTo(longest) > 0) {
				longest = delay;
			}
		}
		return longest;
	}

	@Override
	public void forget(T item) {
		Objects.requireNonNull(item, "item");
		for (RateLimiter<? super T> limiter : this.limiters) {
			limiter.forget(item);
		}
	}

	@Override
	public int numRequeues(T item) {
		Objects.requireNonNull(item, "item");
		int most = 0;
		for (RateLimiter<? super T> limiter : this.limiters) {
			most = Math.max(most, limiter.numRequeues(item));
		}
		return most;
	}

	@Override
	public String toString() {
		return "MaxOfRateLimiter" + Arrays.toString(this.limiters);
	}

}
