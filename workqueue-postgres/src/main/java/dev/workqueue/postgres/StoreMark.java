package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import dev.workqueue.time.Clock;

/**
 * The mark a queue keeps with its data: the format its rows are stored in and the kind of
 * clock that times them, one row of the {@code _limit} table ({@code kind = 'mark'},
 * {@code item = ''}, {@code count} the format, {@code holder} the clock's kind,
 * {@code expires_at = 'infinity'}). Every handle checks it once, before its first
 * statement: the first handle of a queue writes it ({@code INSERT ... ON CONFLICT}, so of
 * two handles that write at once, one writes and the other reads what it wrote), and a
 * handle that meets another format or the other kind of clock fails, naming both.
 * <p>
 * <b>The previous release</b> wrote no mark. Its rows are read as they are; but while an
 * instance of it is live it must not share the queue (it keeps leases in the item rows,
 * and its given clocks wrote readings as timestamps). A live instance of it shows as the
 * queue's gauges reporter role held and not lapsed while the queue has no mark (every
 * instance of this release writes the mark before its first statement, the role's
 * included): the check then fails, naming the holder and when the role lapses.
 * <p>
 * The mark stays when the queue empties: to change the kind of clock, stop every instance
 * and delete the row ({@code docs/postgres.md}, "Upgrading").
 * <p>
 * Stateless but for its settings: {@link QueueDatabase#ensureMark} runs the check until
 * it succeeded once.
 */
final class StoreMark {

	/** The format this release stores: 2, leases and clock kind as of the fault round. */
	static final int FORMAT = 2;

	/**
	 * The SQLSTATE of a table of this release's schema that is missing (or a column of
	 * it): the missing table's hint, which names the schema script.
	 */
	private static final String UNDEFINED_TABLE = "42P01";

	/** The {@code holder} of a mark whose queue runs on the database's clock. */
	static final String DATABASE_CLOCK = "database";

	/** The {@code holder} of a mark whose queue runs on clocks given to its builders. */
	static final String GIVEN_CLOCK = "given";

	private final Clock clock;

	private final String name;

	private final String table;

	private final SqlStatement read;

	private final SqlStatement write;

	/**
	 * @param clock the given clock, or {@code null} for the database's
	 * @param name the queue's name
	 * @param table the queue table
	 */
	StoreMark(Clock clock, String name, String table) {
		this.clock = clock;
		this.name = name;
		this.table = table;
		this.read = SqlStatement.load("mark_read", table);
		this.write = SqlStatement.load("mark_write", table);
	}

	/**
	 * Checks the mark, writing it if the queue has none, and anchors a given clock on the
	 * database's time; in the transaction of the connection given, which
	 * {@link QueueDatabase#inOwnTransaction} commits. Checks first that the tables have
	 * what this release's schema added (the given-up records' table, the leases' hand-out
	 * column), so that a table of an earlier release whose schema script was not run
	 * again fails every statement at once, naming what is missing, rather than its
	 * give-ups and claims alone.
	 * @param connection a connection of its own, outside any caller's transaction
	 * @throws IllegalStateException if the queue's data has another format or the other
	 * kind of clock, or an instance of the previous release is live
	 * @throws SQLException if the database fails, or (SQLSTATE 42P01) a table or column
	 * of this release's schema is missing
	 */
	void check(Connection connection) throws SQLException {
		if (this.clock != null) {
			ClockAnchor.offsetMicros(this.clock, connection);
		}
		String kind = (this.clock != null) ? GIVEN_CLOCK : DATABASE_CLOCK;
		int format;
		String theirs;
		try (PreparedStatement read = this.read.prepare(connection)) {
			this.read.setString(read, "queue", this.name);
			try (ResultSet row = read.executeQuery()) {
				row.next();
				String missing = row.getString(5);
				if (missing != null) {
					throw new SQLException(missing + " does not exist: the tables were made by an earlier release;"
							+ " run PostgresWorkQueues.schema(table) again (see \"Upgrading\" in docs/postgres.md)",
							UNDEFINED_TABLE);
				}
				format = row.getInt(1);
				theirs = row.getString(2);
				String reporter = row.getString(3);
				if (theirs == null && reporter != null) {
					throw new IllegalStateException(who() + " is in use by an instance of the previous release"
							+ " (its handle " + reporter + " reports the queue's gauges until " + row.getString(4)
							+ "): this release stores leases and times in format " + FORMAT
							+ ", which the previous release does not read; stop every instance of it before this"
							+ " release uses the queue (see \"Upgrading\" in docs/postgres.md)");
				}
			}
		}
		if (theirs == null) {
			try (PreparedStatement write = this.write.prepare(connection)) {
				this.write.setString(write, "queue", this.name);
				this.write.setInt(write, "format", FORMAT);
				this.write.setString(write, "clock", kind);
				try (ResultSet row = write.executeQuery()) {
					row.next();
					format = row.getInt(1);
					theirs = row.getString(2);
				}
			}
		}
		if (format != FORMAT) {
			throw new IllegalStateException(who() + " holds data in format " + format + " (its mark in " + this.table
					+ "_limit), and this release reads and writes format " + FORMAT
					+ "; instances of different formats may not share a queue (see \"Upgrading\" in docs/postgres.md)");
		}
		if (!kind.equals(theirs)) {
			throw new IllegalStateException(who() + " is timed by " + describe(theirs)
					+ " (kept with the queue's data), and this handle by " + describe(kind)
					+ "; every instance sharing a queue must use the same kind of clock, or one would take the items"
					+ " another holds: build it " + ((this.clock != null) ? "without a clock" : "with a clock")
					+ ", or stop every instance and delete the mark (see \"Upgrading\" in docs/postgres.md)");
		}
	}

	private static String describe(String kind) {
		return switch (kind) {
			case DATABASE_CLOCK -> "the database's clock";
			case GIVEN_CLOCK -> "clocks given to its builders";
			default -> "an unknown kind of clock ('" + kind + "')";
		};
	}

	private String who() {
		return "Queue '" + this.name + "' (table " + this.table + ")";
	}

}
