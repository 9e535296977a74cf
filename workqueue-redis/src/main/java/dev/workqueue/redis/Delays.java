package dev.workqueue.redis;

import dev.workqueue.time.Nanos;

/**
 * Delays as the scripts take them: whole microseconds added to the scripts' time, which
 * is the clock's reading in µs rounded down plus its anchor, a whole number of µs
 * ({@link ClockAnchor}), or the server's µs. Rounded so that an item is never ready
 * before its due nanosecond, and clamped so that the scripts' sums stay exact doubles.
 */
final class Delays {

	/** The longest delay, in µs (142 years): the scripts' sum stays an exact double. */
	static final long MAX_MICROS = 1L << 52;

	private Delays() {
	}

	/**
	 * The delay in µs to add to the scripts' time read at {@code nowNanos} so that the
	 * item is ready no earlier than {@code nowNanos + delayNanos}, clamped.
	 * @param nowNanos the reading the script is given (0 on the server's clock)
	 * @param delayNanos the delay, saturated
	 * @return the delay in µs
	 */
	static long micros(long nowNanos, long delayNanos) {
		long dueMicros = -Math.floorDiv(-Nanos.add(nowNanos, delayNanos), 1000);
		return Math.min(dueMicros - Math.floorDiv(nowNanos, 1000), MAX_MICROS);
	}

	/**
	 * A delay from a time of its own, such as a hand-back's, as the script argument.
	 * @param delayNanos the delay, saturated
	 * @return the delay in µs, rounded up and clamped
	 */
	static String micros(long delayNanos) {
		return Long.toString(micros(0, delayNanos));
	}

}
