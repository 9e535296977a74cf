package dev.workqueue.postgres;

import javax.sql.DataSource;

/**
 * Where a handle counts the row versions its statements leave dead (each add, claim,
 * renewal and done leaves some), so that the table is vacuumed where autovacuum is off.
 * The handle reaches {@link TableKeeper} only through this seam, and only when the
 * builder's {@code vacuum} option is on.
 */
interface FinishedRows {

	/** Counting nothing: the table is left to autovacuum (or to the operator). */
	FinishedRows NONE = new FinishedRows() {

		@Override
		public void finished(int rows) {
		}

		@Override
		public void release() {
		}

	};

	/**
	 * Counts rows a statement deleted or left dead; never blocks.
	 * @param rows how many
	 */
	void finished(int rows);

	/** The handle is done. */
	void release();

	/**
	 * Counts for the JVM's shared keeper of {@code table}.
	 * @param dataSource where the keeper takes connections
	 * @param table the table
	 * @return the counter
	 */
	static FinishedRows kept(DataSource dataSource, String table) {
		TableKeeper keeper = TableKeeper.acquire(dataSource, table);
		return new FinishedRows() {

			@Override
			public void finished(int rows) {
				if (rows > 0) {
					keeper.finished(rows);
				}
			}

			@Override
			public void release() {
				keeper.release();
			}

		};
	}

}
