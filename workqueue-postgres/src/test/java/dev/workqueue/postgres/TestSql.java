package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Plain SQL for looking at (and tampering with) a test's table, on a connection of its
 * own.
 */
final class TestSql {

	private TestSql() {
	}

	/** The first column of the first row, or {@code null} without a row. */
	static Long queryLong(String sql, Object... parameters) {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			try (ResultSet rows = statement.executeQuery()) {
				if (!rows.next()) {
					return null;
				}
				long value = rows.getLong(1);
				return rows.wasNull() ? null : value;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run: " + sql, ex);
		}
	}

	/** The first column of the first row as text, or {@code null} without a row. */
	static String queryString(String sql, Object... parameters) {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			try (ResultSet rows = statement.executeQuery()) {
				return rows.next() ? rows.getString(1) : null;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run: " + sql, ex);
		}
	}

	/** Runs a statement; returns the rows it changed. */
	static int update(String sql, Object... parameters) {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			return statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run: " + sql, ex);
		}
	}

	/**
	 * Runs a statement that takes table locks (a {@code TRUNCATE}) while handles work on
	 * the tables, again while PostgreSQL breaks a deadlock by failing it: the handles'
	 * statements lock the item and lease tables in either order (the reap reads the
	 * leases first, a claim the items), so one of them can wait on it while it waits on
	 * the other, as an operator's wipe of a live queue can.
	 */
	static void updateBreakingDeadlocks(String sql) {
		for (int attempt = 1;; attempt++) {
			try {
				update(sql);
				return;
			}
			catch (IllegalStateException ex) {
				if (attempt == 5 || !(ex.getCause() instanceof SQLException cause)
						|| !"40P01".equals(cause.getSQLState())) {
					throw ex;
				}
			}
		}
	}

	/** The rows of a table. */
	static long count(String table) {
		return queryLong("SELECT count(*) FROM " + table);
	}

	/** An item's lease token, or {@code null} if it is not being processed. */
	static Long token(String table, String item) {
		return queryLong("SELECT token FROM " + table + " WHERE item = ? AND state = 1", item);
	}

	/** When an item's lease runs out, in µs since the epoch, or {@code null} for none. */
	static Long leaseUntilMicros(String table, String item) {
		return queryLong(
				"SELECT (extract(epoch FROM lease_until) * 1000000)::bigint FROM " + table + "_lease WHERE item = ?",
				item);
	}

	/**
	 * What the reaper does to an item whose lease ran out: queued again at the back of
	 * the line, its lease gone.
	 */
	static void expireLeaseByHand(String table, String item) {
		int changed = update("WITH ended AS (DELETE FROM " + table + "_lease WHERE item = ?) UPDATE " + table
				+ " SET state = 0, token = NULL, holder = NULL, lease_until = NULL, seq = nextval('" + table
				+ "_token') WHERE item = ? AND state = 1", item, item);
		if (changed != 1) {
			throw new IllegalStateException(item + " was not leased");
		}
	}

}
