package dev.workqueue.redis;

import java.time.Duration;

import dev.workqueue.ratelimit.Jitter;

/**
 * How a failure-counting limiter turns an item's earlier failures into a delay.
 */
sealed interface FailureDelay {

	/**
	 * Returns the delay after {@code failures} earlier failures.
	 * @param failures the item's failures before this one
	 * @return the delay
	 */
	Duration after(long failures);

	/**
	 * {@code base * 2^failures}, capped at {@code max} without overflowing, then
	 * shortened by the jitter.
	 *
	 * @param base the first delay
	 * @param max the cap
	 * @param jitter cuts each delay by a random part; {@link Jitter#NONE} for none
	 */
	record Exponential(Duration base, Duration max, Jitter jitter) implements FailureDelay {

		@Override
		public Duration after(long failures) {
			return this.jitter.apply(exact(failures));
		}

		private Duration exact(long failures) {
			if (this.base.isZero()) {
				return Duration.ZERO;
			}
			// Past 62 doublings any positive base exceeds every cap a Duration holds.
			if (failures >= 62) {
				return this.max;
			}
			long maxNanos = saturatedNanos(this.max);
			long baseNanos = saturatedNanos(this.base);
			long factor = 1L << failures;
			if (baseNanos > maxNanos / factor) {
				return this.max;
			}
			return Duration.ofNanos(baseNanos * factor);
		}

		private static long saturatedNanos(Duration duration) {
			try {
				return duration.toNanos();
			}
			catch (ArithmeticException ex) {
				return Long.MAX_VALUE;
			}
		}

	}

	/**
	 * {@code fast} for the first {@code maxFastAttempts} failures, then {@code slow}.
	 *
	 * @param fast the short delay
	 * @param slow the long delay
	 * @param maxFastAttempts failures that get the short delay
	 */
	record FastSlow(Duration fast, Duration slow, int maxFastAttempts) implements FailureDelay {

		@Override
		public Duration after(long failures) {
			return (failures < this.maxFastAttempts) ? this.fast : this.slow;
		}

	}

}
