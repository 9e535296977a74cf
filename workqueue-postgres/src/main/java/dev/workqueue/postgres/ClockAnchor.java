package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.WeakHashMap;

import dev.workqueue.time.Clock;

/**
 * Where a clock given to a builder stands on the database's time. A {@link Clock}'s
 * readings count from an arbitrary origin ({@link Clock#system()} starts near zero), so
 * they cannot be written as timestamps as they are: the first statement that needs one
 * reads the database's time once, and from then on the clock's time on the database is
 * that time plus what the clock measured since. Every instance anchored so agrees with
 * the others up to half the round trip of its anchoring read (the quickest of three),
 * however far apart their clocks' origins are, and a {@code FakeClock} still steps the
 * time of the statements exactly.
 * <p>
 * One anchor per clock object in this JVM (its handles and limiters share it, so that
 * they agree exactly), kept until the clock is collected. Thread-safe: the anchors are
 * guarded by the map's lock; two threads that anchor the same clock at once both read the
 * database's time, and the first to record its reading wins.
 */
final class ClockAnchor {

	/** The database's time minus each clock's, in µs; guarded by itself. */
	private static final Map<Clock, Long> OFFSETS = new WeakHashMap<>();

	/**
	 * Reads of the database's time an anchoring makes: the one answered in the shortest
	 * time is kept, and its time taken as read halfway through, so that the anchor errs
	 * by at most half that round trip (a {@code FakeClock} does not move meanwhile: any
	 * read is exact).
	 */
	private static final int READS = 3;

	private static final SqlStatement DATABASE_MICROS = SqlStatement.load("clock_read", null);

	private ClockAnchor() {
	}

	/**
	 * The clock's time on the database, µs since the epoch; the first call for a clock
	 * reads the database's time on the connection given.
	 * @param clock the given clock
	 * @param connection a connection to read the database's time on, if the clock has no
	 * anchor yet (a plain read, harmless in a caller's transaction)
	 * @return the clock's time, µs since the epoch
	 * @throws SQLException if the read fails
	 */
	static long micros(Clock clock, Connection connection) throws SQLException {
		long offset = offsetMicros(clock, connection);
		return Math.floorDiv(clock.nanoTime(), 1000) + offset;
	}

	/**
	 * The database's time minus the clock's, in µs, read once per clock.
	 * @param clock the given clock
	 * @param connection where to read the database's time if not read yet
	 * @return the offset
	 * @throws SQLException if the read fails
	 */
	static long offsetMicros(Clock clock, Connection connection) throws SQLException {
		Long known;
		synchronized (OFFSETS) {
			known = OFFSETS.get(clock);
		}
		if (known != null) {
			return known;
		}
		long offset = 0;
		long bestWindowNanos = Long.MAX_VALUE;
		try (PreparedStatement statement = DATABASE_MICROS.prepare(connection)) {
			for (int read = 0; read < READS; read++) {
				long beforeNanos = clock.nanoTime();
				long databaseMicros;
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					databaseMicros = result.getLong(1);
				}
				long windowNanos = clock.nanoTime() - beforeNanos;
				if (windowNanos < bestWindowNanos) {
					bestWindowNanos = windowNanos;
					offset = databaseMicros - Math.floorDiv(beforeNanos + windowNanos / 2, 1000);
				}
			}
		}
		long anchored = offset;
		synchronized (OFFSETS) {
			return OFFSETS.computeIfAbsent(clock, (c) -> anchored);
		}
	}

	/**
	 * The offset of a clock anchored already.
	 * @param clock the clock
	 * @return the database's time minus the clock's in µs, or {@code null} if not
	 * anchored
	 */
	static Long knownOffsetMicros(Clock clock) {
		synchronized (OFFSETS) {
			return OFFSETS.get(clock);
		}
	}

}
