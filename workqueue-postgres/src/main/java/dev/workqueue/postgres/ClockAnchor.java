package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import dev.workqueue.store.ClockAnchors;
import dev.workqueue.time.Clock;

/**
 * Where a clock given to a builder stands on the database's time: core's
 * {@link ClockAnchors} over reads of the database's time ({@code clock_read}), made by
 * the first statement that needs a clock's time as a timestamp.
 * <p>
 * One anchor per clock object in this JVM, shared by its handles and limiters so that
 * they agree exactly. Thread-safe as {@link ClockAnchors} is.
 */
final class ClockAnchor {

	/** The anchors on the database's time. */
	private static final ClockAnchors ANCHORS = new ClockAnchors();

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
		Long known = ANCHORS.knownOffsetMicros(clock);
		if (known != null) {
			return known;
		}
		try (PreparedStatement statement = DATABASE_MICROS.prepare(connection)) {
			return ANCHORS.anchor(clock, () -> databaseMicros(statement));
		}
	}

	/**
	 * The offset of a clock anchored already.
	 * @param clock the clock
	 * @return the database's time minus the clock's in µs, or {@code null} if not
	 * anchored
	 */
	static Long knownOffsetMicros(Clock clock) {
		return ANCHORS.knownOffsetMicros(clock);
	}

	private static long databaseMicros(PreparedStatement statement) throws SQLException {
		try (ResultSet result = statement.executeQuery()) {
			result.next();
			return result.getLong(1);
		}
	}

}
