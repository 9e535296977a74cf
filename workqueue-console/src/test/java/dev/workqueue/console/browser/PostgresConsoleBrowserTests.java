package dev.workqueue.console.browser;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The console of a PostgreSQL queue shared by two instances, in a real browser. Needs the
 * PostgreSQL on {@code 127.0.0.1:5432} (database {@code test}, user {@code postgres};
 * skipped loudly without it, failed when {@code WORKQUEUE_POSTGRES_REQUIRED=true}); drops
 * every table and sequence it made.
 */
class PostgresConsoleBrowserTests extends ConsoleBrowserContract {

	private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

	private static final String TABLE = "wq_console_" + ProcessHandle.current().pid();

	private static List<ConsoleApp> apps = List.of();

	@BeforeAll
	static void startApps() {
		boolean answers = answers();
		if (!answers && "true".equalsIgnoreCase(System.getenv("WORKQUEUE_POSTGRES_REQUIRED"))) {
			throw new IllegalStateException("No PostgreSQL at " + URL + ", and the PostgreSQL tests are required");
		}
		if (!answers) {
			System.err.println("*** SKIPPING THE CONSOLE'S POSTGRESQL BROWSER TESTS: no PostgreSQL at " + URL + " ***");
		}
		assumeThat(answers).as("PostgreSQL at " + URL).isTrue();
		String[] properties = { "workqueue.console.read-only=false", "spring.datasource.url=" + URL,
				"spring.datasource.username=postgres",
				"spring.datasource.type=org.springframework.jdbc.datasource.SimpleDriverDataSource",
				"workqueue.postgres.table=" + TABLE, "workqueue.queues.jobs.backend=postgres" };
		apps = List.of(ConsoleApp.start(properties), ConsoleApp.start(properties));
	}

	@AfterAll
	static void stopAppsAndDropTables() throws SQLException {
		apps.forEach(ConsoleApp::close);
		try (Connection connection = DriverManager.getConnection(URL, "postgres", null);
				Statement statement = connection.createStatement()) {
			List<String> drops = new ArrayList<>();
			try (ResultSet made = statement.executeQuery("SELECT relkind, relname FROM pg_class WHERE relname LIKE '"
					+ TABLE + "%' AND relkind IN ('r', 'S') ORDER BY relkind DESC")) {
				while (made.next()) {
					drops.add(("r".equals(made.getString(1)) ? "DROP TABLE IF EXISTS " : "DROP SEQUENCE IF EXISTS ")
							+ made.getString(2) + " CASCADE");
				}
			}
			for (String drop : drops) {
				statement.execute(drop);
			}
		}
	}

	private static boolean answers() {
		try (Connection connection = DriverManager.getConnection(URL, "postgres", null)) {
			return connection.isValid(2);
		}
		catch (SQLException ex) {
			return false;
		}
	}

	@Override
	String backend() {
		return "postgres";
	}

	@Override
	List<ConsoleApp> instances() {
		return apps;
	}

}
