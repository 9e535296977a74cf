package dev.workqueue.postgres;

import javax.sql.DataSource;

/**
 * Keeps a queue table from growing with the items that passed through it: counts finished
 * rows and vacuums the table itself where autovacuum is off. One per JVM and table.
 * (Issue #30: being written; the signatures are fixed.)
 */
final class TableKeeper {

	private TableKeeper() {
	}

	/**
	 * Returns the shared keeper of {@code table}; pair each call with {@link #release()}.
	 * @param dataSource where it takes connections
	 * @param table the table
	 * @return the keeper
	 */
	static TableKeeper acquire(DataSource dataSource, String table) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/**
	 * Counts rows that a statement deleted or left dead; never blocks.
	 * @param rows how many
	 */
	void finished(int rows) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/** Gives back one {@link #acquire}. */
	void release() {
		throw new UnsupportedOperationException("#30: not written yet");
	}

}
