package dev.workqueue.spring.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The PostgreSQL on {@code 127.0.0.1:5432} (database {@code test}, user {@code postgres})
 * that the postgres backend's tests share with other builds: each test uses tables of its
 * own and drops them. Tests are skipped loudly without it, and fail when
 * {@code WORKQUEUE_POSTGRES_REQUIRED=true}.
 */
final class LocalPostgres {

	static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

	static final String USER = "postgres";

	private static final AtomicInteger counter = new AtomicInteger();

	private LocalPostgres() {
	}

	/**
	 * Skips the calling test class unless the PostgreSQL answers.
	 */
	static void assumeAnswers() {
		boolean answers = answers();
		if (!answers && "true".equalsIgnoreCase(System.getenv("WORKQUEUE_POSTGRES_REQUIRED"))) {
			throw new IllegalStateException("No PostgreSQL at " + URL + ", and the PostgreSQL tests are required");
		}
		if (!answers) {
			System.err.println("*** SKIPPING THE SPRING POSTGRES BACKEND TESTS: no PostgreSQL at " + URL + " ***");
		}
		assumeThat(answers).as("PostgreSQL at " + URL).isTrue();
	}

	/**
	 * Returns a table name no other test (or concurrent build) uses.
	 * @return the name
	 */
	static String uniqueTable() {
		return "wq_spring_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet();
	}

	/**
	 * The properties that point Boot's {@code DataSource} at this PostgreSQL.
	 * @return the properties
	 */
	static String[] dataSourceProperties() {
		return new String[] { "spring.datasource.url=" + URL, "spring.datasource.username=" + USER,
				"spring.datasource.hikari.maximum-pool-size=8" };
	}

	/**
	 * Returns a local port nothing listens on: a data source pointed there cannot reach
	 * its database.
	 * @return the port
	 */
	static int deadPort() {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Drops a queue table and everything the schema made with it.
	 * @param table the table
	 */
	static void dropTable(String table) {
		execute("DROP TABLE IF EXISTS " + table + ", " + table + "_lease, " + table + "_limit, " + table
				+ "_given_up; DROP SEQUENCE IF EXISTS " + table + "_token");
	}

	/**
	 * Tells whether a table (or sequence) exists.
	 * @param name its name
	 * @return whether it exists
	 */
	static boolean exists(String name) {
		try (Connection connection = connect();
				PreparedStatement statement = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
			statement.setString(1, name);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getBoolean(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Counts the rows of a query's first column.
	 * @param sql a query answering one number
	 * @return the number
	 */
	static long count(String sql) {
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run: " + sql, ex);
		}
	}

	/**
	 * Runs SQL on a connection of its own.
	 * @param sql the statements
	 */
	static void execute(String sql) {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run: " + sql, ex);
		}
	}

	static Connection connect() throws SQLException {
		return DriverManager.getConnection(URL, USER, null);
	}

	private static boolean answers() {
		try (Connection connection = connect()) {
			return connection.isValid(2);
		}
		catch (SQLException ex) {
			return false;
		}
	}

}
