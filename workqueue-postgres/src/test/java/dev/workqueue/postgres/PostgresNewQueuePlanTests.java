package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the dones for a queue the table's statistics have not seen: one made since
 * the last {@code ANALYZE} (which the keeper runs where autovacuum is off), whose rows
 * the planner then estimates at one whatever their count. The dones must delete their
 * rows by key all the same: a benchmark that made a new queue on a table analyzed while
 * an older one filled it found each done (and done-and-claim) reading every row of the
 * new queue, 20 ms per look with 4,000 items, and its consumers seconds late. So must the
 * history they forget (and a forget on its own): with the queue a constant, each done
 * read every failure count of the new queue, 13 ms with 20,000.
 */
@RequiresPostgres
class PostgresNewQueuePlanTests {

	private static PostgresFixture fixture;

	@BeforeAll
	static void fill() {
		fixture = new PostgresFixture();
		String table = fixture.table();
		PostgresDatabase.execute("INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq)"
				+ " SELECT 'old', 'w' || g, 0, 0, now() + g * interval '1 ms', g FROM generate_series(1, 8000) g;"
				+ " INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq, token, holder)"
				+ " SELECT 'old', 'p' || g, 1, 0, now(), 8000 + g, g, 'h' FROM generate_series(1, 100) g;"
				+ " INSERT INTO " + table + "_limit (queue, kind, item, count, expires_at)"
				+ " SELECT 'old', 'failures:exponential', 'w' || g, 1, now() + interval '1 hour'"
				+ " FROM generate_series(1, 8000) g; ANALYZE " + table + ", " + table + "_limit");
	}

	@AfterAll
	static void drop() {
		fixture.close();
	}

	@Test
	void donesDeleteTheirRowsByKey() throws SQLException {
		for (SqlStatement statement : doneStatements()) {
			String gone = section(plan(statement), "CTE gone");
			assertThat(gone).as(statement.name()).doesNotContain("Join Filter");
			assertThat(gone.lines().filter((line) -> line.contains("Index Cond")))
				.as("%s: the item table's rows are found by item%n%s", statement.name(), gone)
				.isNotEmpty()
				.allMatch((line) -> line.contains("item ="));
		}
	}

	@Test
	void donesForgetHistoryByKey() throws SQLException {
		for (SqlStatement statement : doneStatements()) {
			String plan = plan(statement);
			assertProbesByKey(statement.name(), section(plan, "CTE forgettable"));
			assertProbesByKey(statement.name(), section(plan, "CTE forgot"));
			// Joined to what it locked (a filter over a few rows), it looks rows up by
			// key.
			assertFoundByKey(statement.name(), section(plan, "CTE unforgotten"));
		}
	}

	@Test
	void forgetDeletesHistoryByKey() throws SQLException {
		SqlStatement forget = new QueueSql(fixture.table(), ReadyOrder.FIFO, false, true).forget;
		assertProbesByKey(forget.name(), plan(forget));
	}

	/** The done and done-with-claim statements of every ready order, starving or not. */
	private static List<SqlStatement> doneStatements() {
		List<SqlStatement> statements = new ArrayList<>();
		for (ReadyOrder order : ReadyOrder.values()) {
			for (boolean starving : new boolean[] { false, true }) {
				QueueSql sql = new QueueSql(fixture.table(), order, starving, true);
				statements.add(sql.done);
				statements.add(sql.doneAndClaim);
			}
		}
		return statements;
	}

	/**
	 * Asserts that each history row is one probe of the primary key: found by all of
	 * (queue, kind, item), none read to be filtered out.
	 */
	private static void assertProbesByKey(String name, String plan) {
		assertThat(plan).as(name).doesNotContain("Filter");
		assertFoundByKey(name, plan);
	}

	/** Asserts that each history row the plan reads by an index is found by its key. */
	private static void assertFoundByKey(String name, String plan) {
		assertThat(plan.lines().filter((line) -> line.contains("Index Cond")))
			.as("%s: the history rows are found by their key%n%s", name, plan)
			.isNotEmpty()
			.allMatch((line) -> line.contains("queue =") && line.contains("kind =") && line.contains("item ="));
	}

	/**
	 * The lines of the plan from the one containing {@code start} to the next part of the
	 * statement (CTE or InitPlan).
	 */
	private static String section(String plan, String start) {
		List<String> lines = plan.lines().toList();
		int from = lines.indexOf(lines.stream().filter((line) -> line.contains(start)).findFirst().orElseThrow());
		int to = from + 1;
		while (to < lines.size() && lines.get(to).startsWith("    ")) {
			to++;
		}
		return String.join("\n", lines.subList(from, to));
	}

	/**
	 * The plan of a statement for a batch of two dones on queue {@code new}, each
	 * forgetting a failure count.
	 */
	private static String plan(SqlStatement sql) throws SQLException {
		return StatementPlans.explain(sql, PostgresNewQueuePlanTests::bind);
	}

	private static void bind(SqlStatement sql, PreparedStatement statement, String parameter) throws SQLException {
		Connection connection = statement.getConnection();
		switch (parameter) {
			case "now" -> sql.setNull(statement, parameter, Types.DOUBLE);
			case "queue" -> sql.setString(statement, parameter, "new");
			case "holder" -> sql.setString(statement, parameter, "h");
			case "limit" -> sql.setInt(statement, parameter, 16);
			case "lease", "starvation" -> sql.setLong(statement, parameter, 60_000_000);
			case "items" ->
				sql.setArray(statement, parameter, connection.createArrayOf("text", new String[] { "a", "b" }));
			case "tokens" ->
				sql.setArray(statement, parameter, connection.createArrayOf("bigint", new Long[] { 1L, 2L }));
			case "item" -> sql.setString(statement, parameter, "a");
			case "forget_items" ->
				sql.setArray(statement, parameter, connection.createArrayOf("text", new String[] { "a", "b" }));
			case "forget_kinds" -> sql.setArray(statement, parameter,
					connection.createArrayOf("text", new String[] { "failures:exponential", "failures:exponential" }));
			case "kinds" -> sql.setArray(statement, parameter,
					connection.createArrayOf("text", new String[] { "failures:exponential", "failures:attempts" }));
			default -> throw new IllegalArgumentException("parameter " + parameter + " of " + sql.name());
		}
	}

}
