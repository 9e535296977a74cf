package dev.workqueue.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The measurement's own connection to the PostgreSQL the issue 30 benchmarks use, and the
 * database each trial runs in.
 * <p>
 * <b>A database per trial.</b> Commits per item come from
 * {@code pg_stat_database.xact_commit}, which counts every commit of one database, so
 * each trial runs in a database of its own ({@link #createDatabase}), made on the server
 * named by the system property {@value #PROPERTY} ({@code host:port/database}, default
 * {@code 127.0.0.1:5432/test}, user {@code postgres}; the database given there is only
 * connected to, to create and drop the others), and dropped when the trial ends. Other
 * clients of a shared server then do not count.
 * <p>
 * <b>Reading without counting.</b> The admin connection runs every query in a transaction
 * it rolls back, so that its own reads add to {@code xact_rollback}, never to
 * {@code xact_commit}.
 * <p>
 * <b>When counts are exact.</b> A backend reports its counts to the statistics at most
 * once a second while busy and about ten seconds after it goes idle, and at once when it
 * exits. A window that ends with {@link #awaitNoClients()} (every contender's pool
 * closed) is therefore exact; a window read while the contenders run is off by what their
 * busy backends have not reported yet (under a second of their commits, at both ends, so
 * it averages out over a long window).
 */
final class PostgresAdmin implements AutoCloseable {

	static final String PROPERTY = "workqueue.bench.postgres";

	/** {@code host:port}. */
	static final String SERVER;

	/** The database connected to, to create and drop the trials' own. */
	static final String MAINTENANCE_DATABASE;

	static final String USER = "postgres";

	static {
		String target = System.getProperty(PROPERTY, System.getenv("WORKQUEUE_BENCH_POSTGRES"));
		if (target == null || target.isBlank()) {
			target = "127.0.0.1:5432/test";
		}
		int slash = target.indexOf('/');
		SERVER = (slash < 0) ? target : target.substring(0, slash);
		MAINTENANCE_DATABASE = (slash < 0) ? "test" : target.substring(slash + 1);
	}

	private final Connection connection;

	private PostgresAdmin(Connection connection) {
		this.connection = connection;
	}

	/**
	 * Returns the JDBC URL of a database on the benchmarks' server.
	 * @param database the database
	 * @return its URL, with the user
	 */
	static String url(String database) {
		return "jdbc:postgresql://" + SERVER + "/" + database + "?user=" + USER;
	}

	/**
	 * Creates a database no other run uses ({@code wqbench_<hex>}). It is also dropped
	 * when this JVM exits, should the trial fail before its teardown drops it.
	 * @return its name
	 */
	static String createDatabase() {
		String name = "wqbench_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
		maintenance("CREATE DATABASE " + name);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> dropDatabase(name), "wqbench-drop-" + name));
		return name;
	}

	/**
	 * Drops a database made by {@link #createDatabase}, ending the connections still on
	 * it.
	 * @param name its name
	 */
	static void dropDatabase(String name) {
		maintenance("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
	}

	private static void maintenance(String sql) {
		try (Connection connection = DriverManager.getConnection(url(MAINTENANCE_DATABASE));
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + " on " + SERVER + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Connects to a trial's database.
	 * @param database the database
	 * @return the connection
	 */
	static PostgresAdmin connect(String database) {
		try {
			Connection connection = DriverManager.getConnection(url(database) + "&ApplicationName=wqbench-admin");
			connection.setAutoCommit(false);
			return new PostgresAdmin(connection);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("no PostgreSQL database " + database + " at " + SERVER + " (set -D"
					+ PROPERTY + "=host:port/database): " + ex.getMessage(), ex);
		}
	}

	/**
	 * Runs DDL and commits it (outside any measured window).
	 * @param sql the statements
	 */
	void execute(String sql) {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute(sql);
			this.connection.commit();
		}
		catch (SQLException ex) {
			rollback();
			throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
		}
	}

	/** Commits of this database so far, as the statistics have them. */
	long commits() {
		return queryLong("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
	}

	/** Client connections open on this database, the admin's own left out. */
	long connections() {
		return queryLong("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
				+ " AND backend_type = 'client backend' AND pid <> pg_backend_pid()");
	}

	/**
	 * Bytes of a table with its indexes and TOAST ({@code pg_total_relation_size}).
	 * @param table the table
	 * @return its size
	 */
	long totalRelationSize(String table) {
		return queryLong("SELECT pg_total_relation_size('" + table + "')");
	}

	/**
	 * Dead row versions of a table as the statistics have them
	 * ({@code pg_stat_user_tables.n_dead_tup}).
	 * @param table the table
	 * @return dead rows
	 */
	long deadRows(String table) {
		return queryLong(
				"SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE relid = '" + table + "'::regclass");
	}

	/**
	 * Rows of a table.
	 * @param table the table
	 * @return its row count
	 */
	long rows(String table) {
		return queryLong("SELECT count(*) FROM " + table);
	}

	/**
	 * Waits until no client but this one is connected to the database, so that every
	 * backend that ran the workload has exited and reported its counts.
	 */
	void awaitNoClients() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (connections() > 0) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(connections() + " connections still open 30 s after the pools closed");
			}
			sleepMillis(20);
		}
	}

	private long queryLong(String sql) {
		try (PreparedStatement statement = this.connection.prepareStatement(sql);
				ResultSet result = statement.executeQuery()) {
			result.next();
			return result.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
		}
		finally {
			// A rollback, so that the admin's reads never count as commits.
			rollback();
		}
	}

	private void rollback() {
		try {
			this.connection.rollback();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("rollback: " + ex.getMessage(), ex);
		}
	}

	static void sleepMillis(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
	}

	@Override
	public void close() {
		try {
			this.connection.close();
		}
		catch (SQLException ex) {
			// Closing anyway.
		}
	}

}
