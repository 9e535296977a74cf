package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks shared by the limiters' and the bucket's constructors, so that every
 * message names the argument the same way.
 */
final class Preconditions {

	private Preconditions() {
	}

	/**
	 * Returns {@code rate} if it is zero, positive or {@link Double#POSITIVE_INFINITY}.
	 * @param rate the rate to check
	 * @param name the argument's name, for the message
	 * @return {@code rate}
	 * @throws IllegalArgumentException if {@code rate} is negative or NaN
	 */
	static double requireRate(double rate, String name) {
		// Written as a negated comparison so that NaN fails too.
		if (!(rate >= 0)) {
			throw new IllegalArgumentException(name + " must be zero, positive or infinite, was " + rate);
		}
		return rate;
	}

	static int requireNonNegative(int value, String name) {
		if (value < 0) {
			throw new IllegalArgumentException(name + " must not be negative, was " + value);
		}
		return value;
	}

	static Duration requireNonNegative(Duration value, String name) {
		Objects.requireNonNull(value, name);
		if (value.isNegative()) {
			throw new IllegalArgumentException(name + " must not be negative, was " + value);
		}
		return value;
	}

}
