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
		String state = (ex.getSQLState() != null) ? ex.getSQLState() : "";
		String detail = detail(ex, state);
		return new PostgresQueueException(reason, "Cannot " + what + ": " + reason.description()
				+ ((detail != null) ? ", " + detail : "") + " (SQLSTATE " + state + ": " + ex.getMessage() + ")", ex);
	}

	/**
	 * What a user can act on, beyond the reason: which timeout ran out, what the table
	 * needs. {@code null} when the reason says it all.
	 */
	private static String detail(SQLException ex, String state) {
		if (ex instanceof SQLTransientConnectionException && state.isEmpty()) {
			return "no connection came from the pool in time";
		}
		if (state.startsWith("57P")) {
			return "the server ended the connection (terminated by an operator, shutting down or restarting)";
		}
		if (state.startsWith("53")) {
			return "PostgreSQL is out of resources (connections, memory or disk)";
		}
		if (notifyQueueFull(ex)) {
			return "PostgreSQL's NOTIFY queue is full (a session that listens sits in an open transaction, "
					+ "or listeners fall behind); nothing was committed, and it passes once they read on";
		}
		return switch (state) {
			case "57014" -> "the statement was cancelled (its statement_timeout ran out, or an operator cancelled it)";
			case "55P03" -> "a lock held by another transaction was not released in time (lock_timeout)";
			case "40P01" -> "the server rolled the statement back to break a deadlock";
			case "40001" -> "the server rolled the statement back (serialization failure)";
			case "25006" ->
				"nothing was written; writes work again once the connections reach a database that takes them";
			case "42P01" ->
				"create it (and its _lease, _limit and _given_up tables and _token sequence) with PostgresWorkQueues.schema(table)";
			case "42501" -> "the connection's user needs SELECT, INSERT, UPDATE and DELETE on the queue's table and "
					+ "its _lease, _limit and _given_up tables, and USAGE on its _token sequence";
			case "54000" -> "an item's text is too long for the table's index (at most about 2,700 bytes once "
					+ "compressed); use a codec that stores a key, not the whole object";
			case "22021", "22P05" -> "an item's text cannot be stored in the database's encoding";
			default -> null;
		};
	}

	/**
	 * Classifies by SQLSTATE (and 54000 by its message too); a pool's own time-out (no
	 * state) counts as unreachable.
	 */
	static Reason reason(SQLException ex) {
		String state = (ex.getSQLState() != null) ? ex.getSQLState() : "";
		if (state.startsWith("08") || state.startsWith("57") || state.startsWith("53") || state.equals("55P03")
				|| state.startsWith("40") || ex instanceof SQLTransientConnectionException || notifyQueueFull(ex)) {
			// connection exceptions, operator intervention (cancel, shutdown, statement
			// timeout), insufficient resources (the NOTIFY queue's too), lock not
			// available, and a transaction rolled back by the server (serialization
			// failure, deadlock): all pass
			return Reason.UNREACHABLE;
		}
		return switch (state) {
			case "25006" -> Reason.READ_ONLY; // read_only_sql_transaction
			case "42P01" -> Reason.MISSING_TABLE; // undefined_table (the sequence too)
			case "42501" -> Reason.NO_PERMISSION; // insufficient_privilege
			// bad encoding, untranslatable character, too long for the index (the other
			// program limit, the NOTIFY queue's, is taken above)
			case "22021", "22P05", "54000" -> Reason.BAD_ITEM;
			default -> Reason.REFUSED;
		};
	}

	/**
	 * Whether a commit failed because PostgreSQL's {@code NOTIFY} queue is full: its
	 * SQLSTATE, 54000 (program limit exceeded), is also that of an item too long for the
	 * index, so the message tells them apart: "too many notifications in the NOTIFY
	 * queue", raised at the commit of any transaction that notifies. Only its first line
	 * is read (a driver may append the server's detail and context), and only for the
	 * keyword {@code NOTIFY}, not the English words around it (the server translates its
	 * messages to its {@code lc_messages}); an item too long names the index, whose name
	 * PostgreSQL folds to lower case.
	 * @param ex the driver's exception
	 * @return whether the {@code NOTIFY} queue was full
	 */
	static boolean notifyQueueFull(SQLException ex) {
		String message = ex.getMessage();
		if (!"54000".equals(ex.getSQLState()) || message == null) {
			return false;
		}
		int lineEnd = message.indexOf('\n');
		return ((lineEnd >= 0) ? message.substring(0, lineEnd) : message).contains("NOTIFY");
	}

}
