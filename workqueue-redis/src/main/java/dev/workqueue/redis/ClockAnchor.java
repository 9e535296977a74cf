package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisException;

import dev.workqueue.store.ClockAnchors;
import dev.workqueue.time.Clock;

/**
 * Where a clock given to a builder stands on the Redis server's time: core's
 * {@link ClockAnchors} over reads of the server's time ({@code TIME}), made before the
 * first script that needs a clock's time. The server's clock path (no clock given) never
 * anchors: its scripts read {@code TIME} themselves.
 * <p>
 * One anchor per clock object in this JVM, shared by its handles and limiters so that
 * they agree exactly. Thread-safe as {@link ClockAnchors} is.
 */
final class ClockAnchor {

	/** The anchors on the server's time. */
	private static final ClockAnchors ANCHORS = new ClockAnchors();

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
		Long known = ANCHORS.knownOffsetMicros(clock);
		return (known != null) ? known : ANCHORS.anchor(clock, () -> serverMicros(link, timeout));
	}

	private static long serverMicros(RedisLink link, Duration timeout) {
		List<String> time = RedisLink.answer(link.time(), timeout);
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

}
