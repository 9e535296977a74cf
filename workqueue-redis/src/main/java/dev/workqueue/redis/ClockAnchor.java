package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

import io.lettuce.core.RedisException;

import dev.workqueue.time.Clock;

/**
 * Where a clock given to a builder stands on the Redis server's time. A {@link Clock}'s
 * readings count from an arbitrary origin ({@link Clock#system()} starts near zero), so
 * they cannot be sent to the scripts as they are: the first script that needs one is
 * preceded by reads of the server's time ({@code TIME}), and from then on the clock's
 * time on the server is that time plus what the clock measured since. Every instance
 * anchored so agrees with the others up to half the round trip of its anchoring read (the
 * quickest of three), however far apart their clocks' origins are, and a
 * {@code FakeClock} still steps the scripts' time exactly. The server's clock path (no
 * clock given) never anchors: its scripts read {@code TIME} themselves.
 * <p>
 * One anchor per clock object in this JVM (its handles and limiters share it, so that
 * they agree exactly), kept until the clock is collected. Thread-safe: the anchors are
 * guarded by the map's lock; two threads that anchor the same clock at once both read the
 * server's time, and the first to record its reading wins.
 */
final class ClockAnchor {

	/** The server's time minus each clock's, in µs; guarded by itself. */
	private static final Map<Clock, Long> OFFSETS = new WeakHashMap<>();

	/**
	 * Reads of the server's time an anchoring makes: the one answered in the shortest
	 * time is kept, and its time taken as read halfway through, so that the anchor errs
	 * by at most half that round trip (a {@code FakeClock} does not move meanwhile: any
	 * read is exact).
	 */
	private static final int READS = 3;

	private ClockAnchor() {
	}

	/**
	 * The server's time minus the clock's, in µs, read once per clock.
	 * @param clock the given clock
	 * @param link where to read the server's time if not read yet
	 * @param timeout how long each read may take
	 * @return the offset
	 * @throws RedisException if a read fails or times out
	 */
	static long offsetMicros(Clock clock, RedisLink link, Duration timeout) {
		Long known;
		synchronized (OFFSETS) {
			known = OFFSETS.get(clock);
		}
		if (known != null) {
			return known;
		}
		long offset = 0;
		long bestWindowNanos = Long.MAX_VALUE;
		for (int read = 0; read < READS; read++) {
			long beforeNanos = clock.nanoTime();
			List<String> time = RedisLink.answer(link.time(), timeout);
			long serverMicros = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
			long windowNanos = clock.nanoTime() - beforeNanos;
			if (windowNanos < bestWindowNanos) {
				bestWindowNanos = windowNanos;
				offset = serverMicros - Math.floorDiv(beforeNanos + windowNanos / 2, 1000);
			}
		}
		long anchored = offset;
		synchronized (OFFSETS) {
			return OFFSETS.computeIfAbsent(clock, (c) -> anchored);
		}
	}

}
