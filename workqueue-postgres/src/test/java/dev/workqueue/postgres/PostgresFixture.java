package dev.workqueue.postgres;

import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/**
 * A table of a test's own: created from {@link PostgresWorkQueues#schema(String)} with a
 * name no other test (or concurrent build) uses, and dropped with everything it made by
 * {@link #close()}.
 */
final class PostgresFixture implements AutoCloseable {

	private static final AtomicInteger counter = new AtomicInteger();

	private final String table;

	PostgresFixture() {
		this.table = "wq_test_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet();
		PostgresDatabase.execute(PostgresWorkQueues.schema(this.table));
	}

	/** The test's table. */
	String table() {
		return this.table;
	}

	/** The shared pool of the tests. */
	DataSource dataSource() {
		return PostgresDatabase.pool();
	}

	/** A builder of string queues named {@code name} on the test's table. */
	PostgresWorkQueues.Builder<String> builder(String name) {
		return PostgresWorkQueues.builder(dataSource(), dev.workqueue.ItemCodec.strings()).table(this.table).name(name);
	}

	@Override
	public void close() {
		PostgresDatabase.execute("DROP TABLE IF EXISTS " + this.table + ", " + this.table + "_lease, " + this.table
				+ "_limit, " + this.table + "_given_up; DROP SEQUENCE IF EXISTS " + this.table + "_token");
	}

}
