package dev.workqueue.store;

import java.time.Instant;

/**
 * Times as stores keep them, microseconds since the epoch, and the instants an inspection
 * shows for them: {@link #of} reads back exactly what {@link #instant} made, so that a
 * view's time can name a record in the store. Part of the SPI for store modules (may
 * change before 1.0).
 */
public final class EpochMicros {

	private static final long MICROS_PER_SECOND = 1_000_000;

	private EpochMicros() {
	}

	/**
	 * Returns the instant of a time in microseconds since the epoch.
	 * @param micros the time
	 * @return the instant
	 */
	public static Instant instant(long micros) {
		return Instant.ofEpochSecond(Math.floorDiv(micros, MICROS_PER_SECOND),
				Math.floorMod(micros, MICROS_PER_SECOND) * 1000);
	}

	/**
	 * Returns an instant in microseconds since the epoch, cut to the microsecond;
	 * saturated past what a {@code long} holds.
	 * @param instant the instant
	 * @return the time
	 */
	public static long of(Instant instant) {
		long seconds = instant.getEpochSecond();
		if (Math.abs(seconds) >= Long.MAX_VALUE / MICROS_PER_SECOND) {
			return (seconds > 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
		}
		return seconds * MICROS_PER_SECOND + instant.getNano() / 1000;
	}

}
