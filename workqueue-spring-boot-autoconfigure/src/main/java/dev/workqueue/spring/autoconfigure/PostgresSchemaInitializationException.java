package dev.workqueue.spring.autoconfigure;

import java.sql.SQLException;
import java.util.Objects;

/**
 * Thrown at start-up when the starter could not create the table of the queues with
 * backend {@code postgres} ({@code workqueue.postgres.initialize-schema=always}), most
 * often because the database cannot be reached. Its message starts with what the driver
 * said (the deepest {@link SQLException} of its causes, else the deepest cause), which
 * the wrapping of bean creation would otherwise bury several causes deep.
 */
public final class PostgresSchemaInitializationException extends IllegalStateException {

	private final String table;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param table the queues' table, as configured
	 * @param cause what the schema run threw
	 */
	public PostgresSchemaInitializationException(String table, RuntimeException cause) {
		this(table, rootMessage(cause), cause);
	}

	private PostgresSchemaInitializationException(String table, String reason, RuntimeException cause) {
		super(reason + " (while creating the work queue table '" + table + "')", cause);
		this.table = Objects.requireNonNull(table, "table");
		this.reason = reason;
	}

	/**
	 * Returns the queues' table, as configured.
	 * @return the table
	 */
	public String getTable() {
		return this.table;
	}

	/**
	 * Returns what went wrong, as the deepest cause says it.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

	private static String rootMessage(Throwable ex) {
		Throwable root = ex;
		Throwable driver = null;
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			root = cause;
			if (cause instanceof SQLException) {
				driver = cause;
			}
		}
		Throwable said = (driver != null) ? driver : root;
		return (said.getMessage() != null) ? said.getMessage() : said.getClass().getName();
	}

}
