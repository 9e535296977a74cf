package dev.workqueue.postgres;

import javax.sql.DataSource;

/**
 * Where a handle counts the row versions its statements leave dead (each add, claim,
 * renewal and done leaves some), so that the table is vacuumed where autovacuum is off.
 * The handle reaches {@link TableKeeper} only through this seam; the builder's
 * {@link VacuumPolicy} decides whether the keeper vacuums (it sweeps the limiters'
 * expired rows either way).
 */
interface FinishedRows {

	/**
	 * Counts rows a statement deleted or left dead; never blocks.
	 * @param rows how many
	 */
	void finished(int rows);

	/** The handle is done. */
	void release();

	/**
	 * What holds back the cleanup of the table (another session's old snapshot), for
	 * health.
	 * @return the description, or {@code null} while nothing does
	 */
	String warning();

	/**
	 * Counts for the JVM's shared keeper of {@code table} under {@code policy}.
	 * @param dataSource where the keeper takes connections
	 * @param table the table
	 * @param policy who vacuums the table
	 * @return the keeper, acquired once more: its {@link #release()} gives that back
	 */
	static FinishedRows kept(DataSource dataSource, String table, VacuumPolicy policy) {
		return TableKeeper.acquire(dataSource, table, TableKeeper.Settings.of(policy));
	}

}
