package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
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
 * new queue, 20 ms per look with 4,000 items, and its consumers seconds late.
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
				+ " SELECT 'old', 'p' || g, 1, 0, now(), 8000 + g, g, 'h' FROM generate_series(1, 100) g; ANALYZE "
				+ table);
	}

	@AfterAll
	static void drop() {
		fixture.close();
	}

	@Test
	void donesDeleteTheirRowsByKey() throws SQLException {
		for (ReadyOrder order : ReadyOrder.values()) {
			for (boolean starving : new boolean[] { false, true }) {
				QueueSql sql = new QueueSql(fixture.table(), order, starving, true);
				for (SqlStatement statement : List.of(sql.done, sql.doneAndClaim)) {
					String gone = section(plan(statement), "CTE gone");
					assertThat(gone).as(statement.name()).doesNotContain("Join Filter");
					assertThat(gone.lines().filter((line) -> line.contains("Index Cond")))
						.as("%s: the item table's rows are found by item%n%s", statement.name(), gone)
						.isNotEmpty()
						.allMatch((line) -> line.contains("item ="));
				}
			}
		}
	}

	/** The lines of the plan from the one containing {@code start} to the next CTE. */
	private static String section(String plan, String start) {
		List<String> lines = plan.lines().toList();
		int from = lines.indexOf(lines.stream().filter((line) -> line.contains(start)).findFirst().orElseThrow());
		int to = from + 1;
		while (to < lines.size() && !lines.get(to).startsWith("  CTE ")) {
			to++;
		}
		return String.join("\n", lines.subList(from, to));
	}

	/** The plan of a statement for a batch of two dones on queue {@code new}. */
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
			case "forget_items", "forget_kinds" ->
				sql.setArray(statement, parameter, connection.createArrayOf("text", new String[0]));
			default -> throw new IllegalArgumentException("parameter " + parameter + " of " + sql.name());
		}
	}

}
