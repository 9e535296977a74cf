package dev.workqueue.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Set;

import javax.sql.DataSource;

import dev.workqueue.time.Clock;

/**
 * How a handle reaches its table: its own transactions on connections that never join a
 * caller's (one statement, committed at once), the time each statement takes as
 * {@code now}, and failures named after the queue and table.
 * <p>
 * A connection is taken for one statement and given back at once: a handle never holds
 * one while it waits. Thread-safe (stateless but for its settings).
 */
final class QueueDatabase {

	/** A statement's work on a connection. */
	@FunctionalInterface
	interface Work<R> {

		R run(Connection connection) throws SQLException;

	}

	/** Deadlock detected, serialization failure: the transaction was rolled back. */
	private static final Set<String> ROLLED_BACK = Set.of("40P01", "40001");

	/** Runs of a statement rolled back so, before its failure is thrown. */
	private static final int MAX_ATTEMPTS = 3;

	private final DataSource workers;

	private final Clock clock;

	private final String name;

	private final String table;

	private final StoreMark mark;

	/** Whether the mark was checked; written under {@code mark}'s lock. */
	private volatile boolean marked;

	/**
	 * @param workers connections outside any caller's transaction
	 * @param clock the given clock, or {@code null} for the database's
	 * @param name the queue's name
	 * @param table the table
	 */
	QueueDatabase(DataSource workers, Clock clock, String name, String table) {
		this.workers = workers;
		this.clock = clock;
		this.name = name;
		this.table = table;
		this.mark = new StoreMark(clock, name, table);
	}

	/**
	 * Checks the queue's {@link StoreMark} (and anchors a given clock) unless done:
	 * before the first statement of the handle, on a connection of its own, taken and
	 * given back before the statement's, in a transaction of its own. Once it succeeded,
	 * a volatile read.
	 * @throws IllegalStateException if the queue is kept in another format or timed by
	 * the other kind of clock, or an instance of the previous release is live
	 * @param action what is about to be done ("add to"), for a failure's message
	 * @throws PostgresQueueException if the database fails
	 */
	void ensureMark(String action) {
		if (this.marked) {
			return;
		}
		synchronized (this.mark) {
			if (this.marked) {
				return;
			}
			try {
				runOnce((connection) -> {
					this.mark.check(connection);
					return null;
				});
			}
			catch (SQLException ex) {
				throw failure(ex, action);
			}
			this.marked = true;
		}
	}

	/**
	 * Checks the mark at a build; a database that cannot be asked leaves it to the first
	 * statement (a build does not need it: health tells).
	 * @throws IllegalStateException as {@link #ensureMark(String)}
	 */
	void ensureMarkIfReachable() {
		try {
			ensureMark("check the mark of");
		}
		catch (PostgresQueueException ex) {
			// Checked again before the handle's first statement, which fails as this did.
		}
	}

	/**
	 * Runs a statement in a transaction of its own, committed before this returns.
	 * @param action what is done, for a failure's message ("take from")
	 * @param work the statement
	 * @return what the work returns
	 * @throws PostgresQueueException if it fails (nothing was committed, unless the
	 * connection broke during the commit)
	 */
	<R> R run(String action, Work<R> work) {
		ensureMark(action);
		for (int attempt = 1;; attempt++) {
			try {
				return runOnce(work);
			}
			catch (SQLException ex) {
				// Rolled back by the server to break a deadlock (statements that wait for
				// several rows lock them in one order, but a caller's transaction or a
				// done riding with a claim may not): nothing was committed, and each
				// statement means the same when run again.
				// A broken connection's exception may have no SQLSTATE at all.
				if (ex.getSQLState() == null || !ROLLED_BACK.contains(ex.getSQLState()) || attempt == MAX_ATTEMPTS) {
					throw failure(ex, action);
				}
			}
		}
	}

	private <R> R runOnce(Work<R> work) throws SQLException {
		try (Connection connection = this.workers.getConnection()) {
			return inOwnTransaction(connection, work);
		}
	}

	/**
	 * Runs work in a transaction of its own: committed by auto-commit, or here when a
	 * pool hands out connections with auto-commit off (rolled back here if it fails).
	 * @param connection a connection outside any caller's transaction
	 * @param work the statements
	 * @return what the work returns
	 * @throws SQLException if the work or the commit fails
	 */
	static <R> R inOwnTransaction(Connection connection, Work<R> work) throws SQLException {
		if (connection.getAutoCommit()) {
			return work.run(connection);
		}
		try {
			R result = work.run(connection);
			connection.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			try {
				connection.rollback();
			}
			catch (SQLException rollback) {
				ex.addSuppressed(rollback);
			}
			throw ex;
		}
	}

	/**
	 * Runs work of several statements in one transaction: the transaction the connection
	 * is in (a caller's, or one {@link #inOwnTransaction} commits), or else one of its
	 * own, committed here (rolled back if it fails), with auto-commit set back after.
	 * @param connection the connection
	 * @param work the statements
	 * @return what the work returns
	 * @throws SQLException if the work or the commit fails
	 */
	static <R> R inOneTransaction(Connection connection, Work<R> work) throws SQLException {
		if (!connection.getAutoCommit()) {
			return work.run(connection);
		}
		connection.setAutoCommit(false);
		R result;
		try {
			result = inOwnTransaction(connection, work);
		}
		catch (SQLException | RuntimeException ex) {
			try {
				connection.setAutoCommit(true);
			}
			catch (SQLException reset) {
				ex.addSuppressed(reset);
			}
			throw ex;
		}
		connection.setAutoCommit(true);
		return result;
	}

	/**
	 * Names a failure of this queue.
	 * @param ex the driver's exception
	 * @param action what was done ("add to")
	 * @return the exception to throw
	 */
	PostgresQueueException failure(SQLException ex, String action) {
		return SqlErrors.translate(ex, what(action));
	}

	/** "add to queue 'orders' (table workqueue_item)". */
	String what(String action) {
		return action + " queue '" + this.name + "' (table " + this.table + ")";
	}

	/**
	 * Binds {@code :now}: the given clock's time on the database ({@link ClockAnchor},
	 * anchored by {@link #ensureMark(String)} before the first statement) in µs since the
	 * epoch, or {@code null} for the database's.
	 */
	void bindNow(SqlStatement sql, PreparedStatement statement) throws SQLException {
		if (this.clock == null) {
			sql.setNull(statement, "now", Types.DOUBLE);
		}
		else {
			sql.setDouble(statement, "now", ClockAnchor.micros(this.clock, statement.getConnection()));
		}
	}

	static Array bigints(Connection connection, long[] values) throws SQLException {
		Long[] boxed = new Long[values.length];
		for (int i = 0; i < values.length; i++) {
			boxed[i] = values[i];
		}
		return connection.createArrayOf("bigint", boxed);
	}

	String name() {
		return this.name;
	}

	String table() {
		return this.table;
	}

}
