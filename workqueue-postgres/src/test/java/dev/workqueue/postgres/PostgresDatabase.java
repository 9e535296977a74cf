package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The PostgreSQL the tests run on: {@code jdbc:postgresql://127.0.0.1:5432/test} as user
 * {@code postgres} unless {@code WORKQUEUE_POSTGRES_URL} (or the system property
 * {@code workqueue.test.postgres.url}) says otherwise. Whether it answers is asked once
 * per JVM.
 */
final class PostgresDatabase {

	static final String REQUIRED_PROPERTY = "workqueue.test.postgres.required";

	static final String URL = setting("workqueue.test.postgres.url", "WORKQUEUE_POSTGRES_URL",
			"jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

	private static final boolean AVAILABLE = probe();

	private static volatile HikariDataSource pool;

	private PostgresDatabase() {
	}

	/** Whether the database answers. */
	static boolean available() {
		return AVAILABLE;
	}

	/** Whether the PostgreSQL tests must run (CI): a missing database then fails them. */
	static boolean required() {
		return Boolean.parseBoolean(setting(REQUIRED_PROPERTY, "WORKQUEUE_POSTGRES_REQUIRED", "false"));
	}

	/**
	 * A pool shared by the tests of this JVM (as an application's), up to 24 connections.
	 */
	static DataSource pool() {
		if (pool == null) {
			synchronized (PostgresDatabase.class) {
				if (pool == null) {
					pool = newPool(24);
				}
			}
		}
		return pool;
	}

	/** A new pool of its own, which the caller closes. */
	static HikariDataSource newPool(int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(URL);
		config.setMaximumPoolSize(size);
		config.setPoolName("workqueue-test-" + size);
		return new HikariDataSource(config);
	}

	/** A new connection outside any pool. */
	static Connection connect() throws SQLException {
		return DriverManager.getConnection(URL);
	}

	/** Runs SQL on a connection of its own. */
	static void execute(String sql) {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot run: " + sql, ex);
		}
	}

	private static boolean probe() {
		try (Connection connection = connect()) {
			return connection.isValid(2);
		}
		catch (SQLException ex) {
			return false;
		}
	}

	private static String setting(String property, String variable, String fallback) {
		String value = System.getProperty(property);
		if (value == null) {
			value = System.getenv(variable);
		}
		return (value != null && !value.isEmpty()) ? value : fallback;
	}

}
