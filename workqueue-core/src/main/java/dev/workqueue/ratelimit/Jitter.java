package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Randomly shortens backoff delays, so that many items failing together do not all retry
 * at the same moment: a delay {@code d} becomes a value drawn uniformly from
 * {@code [d * (1 - fraction), d]}. A jitter never lengthens a delay, so a limiter's
 * {@code maxDelay} stays its cap (the bounds hold to the nanosecond, within a
 * {@code double}'s precision). Our addition: client-go's limiters have none, and
 * {@link #NONE} (fraction 0) keeps their exact delays.
 * <p>
 * Immutable and thread-safe; it draws from {@link ThreadLocalRandom}, so threads do not
 * contend.
 */
public final class Jitter {

	/** No jitter: every delay is returned unchanged. */
	public static final Jitter NONE = new Jitter(0, () -> 0);

	/** Delays up to this long are cut in nanoseconds, longer ones in seconds. */
	private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

	private final double fraction;

	/** Uniform in [0, 1]. */
	private final DoubleSupplier random;

	private Jitter(double fraction, DoubleSupplier random) {
		this.fraction = fraction;
		this.random = random;
	}

	/**
	 * Returns a jitter that cuts each delay by a random part of at most {@code fraction}.
	 * @param fraction the largest part of a delay to cut, in {@code [0, 1]}
	 * @return the jitter; {@link #NONE} for 0
	 * @throws IllegalArgumentException if {@code fraction} is outside {@code [0, 1]} or
	 * NaN
	 */
	public static Jitter of(double fraction) {
		return of(fraction, () -> ThreadLocalRandom.current().nextDouble());
	}

	/** As {@link #of(double)}, drawing from {@code random}; for tests. */
	static Jitter of(double fraction, DoubleSupplier random) {
		// Written as a negated comparison so that NaN fails too.
		if (!(fraction >= 0 && fraction <= 1)) {
			throw new IllegalArgumentException("jitter must be between 0 and 1, was " + fraction);
		}
		return (fraction == 0) ? NONE : new Jitter(fraction, Objects.requireNonNull(random, "random"));
	}

	/**
	 * Returns the part of a delay that may be cut.
	 * @return the fraction, in {@code [0, 1]}
	 */
	public double fraction() {
		return this.fraction;
	}

	/**
	 * Returns {@code delay} shortened by a random part of at most {@link #fraction()}.
	 * @param delay the delay without jitter, not negative
	 * @return a delay in {@code [delay * (1 - fraction), delay]}
	 */
	public Duration apply(Duration delay) {
		if (this.fraction == 0 || delay.isZero()) {
			return delay;
		}
		double cut = this.fraction * this.random.getAsDouble();
		if (delay.compareTo(MAX_NANOS) <= 0) {
			return delay.minusNanos((long) (delay.toNanos() * cut));
		}
		return delay.minusSeconds((long) (delay.getSeconds() * cut));
	}

	@Override
	public String toString() {
		return "Jitter[" + this.fraction + "]";
	}

}
