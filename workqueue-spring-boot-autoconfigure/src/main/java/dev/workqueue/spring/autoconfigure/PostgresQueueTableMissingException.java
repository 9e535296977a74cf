package dev.workqueue.spring.autoconfigure;

import java.util.List;
import java.util.Objects;

/**
 * Thrown at start-up when the table of the queues with backend {@code postgres} (or the
 * objects made with it) is still missing once the application's own database
 * initialization has run: {@code workqueue.postgres.initialize-schema} is {@code never}
 * and no migration created it.
 */
public final class PostgresQueueTableMissingException extends IllegalStateException {

	private final String table;

	private final List<String> missing;

	/**
	 * Creates an exception.
	 * @param table the queues' table, as configured
	 * @param missing the objects that do not exist: the table, its sequence, its
	 * limiters' table
	 */
	public PostgresQueueTableMissingException(String table, List<String> missing) {
		super("The work queue table '" + table + "' is missing from the application's database (not found: "
				+ String.join(", ", missing) + ")");
		this.table = Objects.requireNonNull(table, "table");
		this.missing = List.copyOf(missing);
	}

	/**
	 * Returns the queues' table, as configured.
	 * @return the table
	 */
	public String getTable() {
		return this.table;
	}

	/**
	 * Returns the objects that do not exist.
	 * @return their names, unmodifiable
	 */
	public List<String> getMissing() {
		return this.missing;
	}

}
