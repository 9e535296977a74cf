package dev.workqueue.postgres;

/**
 * Delays as the statements take them: whole microseconds, rounded up, so that an item is
 * never ready before its delay has passed.
 */
final class Delays {

	private Delays() {
	}

	/**
	 * Returns a delay in µs.
	 * @param delayNanos the delay, not negative
	 * @return it in µs, rounded up
	 */
	static long micros(long delayNanos) {
		return -Math.floorDiv(-delayNanos, 1000);
	}

}
