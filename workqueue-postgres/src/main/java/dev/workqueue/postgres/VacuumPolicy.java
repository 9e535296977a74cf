package dev.workqueue.postgres;

/**
 * Whether a queue's instances vacuum its table themselves. Every item passes through the
 * table as an insert, an update or two and a delete, so a busy queue leaves dead rows as
 * fast as it moves items; without vacuum the table and its indexes grow with every item
 * that ever passed through, and every claim scans further. PostgreSQL's autovacuum
 * removes them where it runs (the schema gives the table settings fit for that), but some
 * servers run without it ({@code autovacuum = off}, as some managed and hand-tuned
 * servers do, or {@code autovacuum_enabled = false} on the table).
 * <p>
 * Whatever the policy, the instances delete the expired rows of the limiters' table
 * (<code>&lt;table&gt;_limit</code>).
 */
public enum VacuumPolicy {

	/**
	 * Vacuum the table where autovacuum does not (the server's {@code autovacuum} or
	 * {@code track_counts} is off, or the table's {@code autovacuum_enabled} is false),
	 * and leave it to autovacuum elsewhere. The default.
	 */
	AUTO,

	/**
	 * Vacuum the table even where autovacuum runs: for a very busy queue, whose dead rows
	 * would pile up between two rounds of autovacuum ({@code autovacuum_naptime}, one
	 * minute by default).
	 */
	ALWAYS,

	/**
	 * Never vacuum the table: the database's administrators see to it.
	 */
	NEVER;

	/**
	 * Whether the queue's instances vacuum the table themselves.
	 * @param autovacuumRuns whether autovacuum runs for the table
	 * @return whether they vacuum it
	 */
	boolean vacuumsItself(boolean autovacuumRuns) {
		return this == ALWAYS || (this == AUTO && !autovacuumRuns);
	}

}
