package dev.workqueue.postgres;

import java.util.Objects;

/**
 * A PostgreSQL queue could not do what was asked. The message names the queue, the table
 * and what happened, and {@link #reason()} tells the kinds apart: the database could not
 * be reached (or a statement timed out), the queue's table is missing, the connection's
 * user lacks a privilege, the database is read-only, or an item cannot be stored. A
 * failed call loses nothing that was acknowledged before it; when an add or a
 * {@code done} throws {@link Reason#UNREACHABLE}, the change may or may not have been
 * committed (the reply can be lost after the commit), and both are safe to repeat.
 */
public class PostgresQueueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** Why a call failed. */
	public enum Reason {

		/**
		 * The database could not be reached, the connection broke, or a statement was
		 * cancelled (statement timeout, lock timeout, server shutdown).
		 */
		UNREACHABLE("PostgreSQL cannot be reached or did not complete the statement"),

		/** The queue's table (or its sequence) does not exist. */
		MISSING_TABLE("the queue's table is missing"),

		/** The connection's user lacks a privilege on the queue's table or sequence. */
		NO_PERMISSION("permission denied"),

		/**
		 * The database takes no writes (SQLSTATE 25006): a standby, as the old primary is
		 * after a failover, or {@code default_transaction_read_only} set for the database
		 * or the role. Nothing was written; the queue works again once the connections
		 * reach a database that takes writes.
		 */
		READ_ONLY("the database is read-only (a standby, or default_transaction_read_only)"),

		/**
		 * An item cannot be stored (its encoding holds a character PostgreSQL refuses).
		 */
		BAD_ITEM("bad item"),

		/** PostgreSQL refused for another reason. */
		REFUSED("PostgreSQL refused");

		private final String description;

		Reason(String description) {
			this.description = description;
		}

		/**
		 * Returns a short description, as the message starts with it.
		 * @return the description
		 */
		public String description() {
			return this.description;
		}

	}

	private final Reason reason;

	/**
	 * Creates an exception.
	 * @param reason why the call failed
	 * @param message what happened, naming the queue and table
	 * @param cause the driver's exception, if any
	 */
	public PostgresQueueException(Reason reason, String message, Throwable cause) {
		super(message, cause);
		this.reason = Objects.requireNonNull(reason, "reason");
	}

	/**
	 * Returns why the call failed.
	 * @return the reason
	 */
	public Reason reason() {
		return this.reason;
	}

}
