package dev.workqueue.postgres;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import dev.workqueue.postgres.PostgresQueueException.Reason;

/**
 * Turns the driver's exceptions into {@link PostgresQueueException}s whose reason and
 * message say what happened, by SQLSTATE class (PostgreSQL's Appendix A).
 */
final class SqlErrors {

	private SqlErrors() {
	}

	/**
	 * Translates a failure of {@code what} on a queue.
	 * @param ex the driver's exception
	 * @param what what was being done, as "add to queue 'orders' (table workqueue_item)"
	 * @return the exception to throw
	 */
	static PostgresQueueException translate(SQLException ex, String what) {
		Reason reason = reason(ex);
		return new PostgresQueueException(reason, "Cannot " + what + ": " + reason.description() + " (SQLSTATE "
				+ ex.getSQLState() + ": " + ex.getMessage() + ")", ex);
	}

	/** Classifies by SQLSTATE; a pool's own time-out (no state) counts as unreachable. */
	static Reason reason(SQLException ex) {
		String state = (ex.getSQLState() != null) ? ex.getSQLState() : "";
		if (state.startsWith("08") || state.startsWith("57") || state.startsWith("53") || state.equals("55P03")
				|| state.startsWith("40") || ex instanceof SQLTransientConnectionException) {
			// connection exceptions, operator intervention (cancel, shutdown, statement
			// timeout), insufficient resources, lock not available, and a transaction
			// rolled back by the server (serialization failure, deadlock): all pass
			return Reason.UNREACHABLE;
		}
		return switch (state) {
			case "42P01" -> Reason.MISSING_TABLE; // undefined_table (the sequence too)
			case "42501" -> Reason.NO_PERMISSION; // insufficient_privilege
			case "22021", "22P05", "54000" -> Reason.BAD_ITEM; // bad encoding,
																// untranslatable, too
																// long
			default -> Reason.REFUSED;
		};
	}

}
