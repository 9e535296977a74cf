package dev.workqueue.time;

import java.time.Duration;

/**
 * Overflow-safe arithmetic on {@code long} nanoseconds, for code that turns a
 * {@link Duration} into a deadline on a {@link Clock}. Values too large for a
 * {@code long} are clamped to {@link Long#MAX_VALUE} or {@link Long#MIN_VALUE}, never
 * wrapped, so that a huge delay means "practically never" instead of "in the past".
 */
public final class Nanos {

	private Nanos() {
	}

	/**
	 * Returns {@code duration} in nanoseconds, clamped to the range of a {@code long}.
	 * @param duration the duration, not {@code null}
	 * @return the duration in nanoseconds
	 */
	public static long of(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

	/**
	 * Returns {@code a + b}, clamped to the range of a {@code long}.
	 * @param a the first addend
	 * @param b the second addend
	 * @return the clamped sum
	 */
	public static long add(long a, long b) {
		long sum = a + b;
		// Overflow happened iff both operands have the same sign and the sum's sign
		// differs.
		if (((a ^ sum) & (b ^ sum)) < 0) {
			return (a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
		return sum;
	}

}
