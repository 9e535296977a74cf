package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the console's lists on a large queue: each reads its page through an index
 * (none scans the table), and every claim reads the pause with one probe of the limit
 * table's primary key, once per statement. The table holds 200,000 waiting items (a
 * million take too long to write for a unit test; the plans are those of the headers,
 * which were measured on a million), some ready, processing and given-up ones, analyzed.
 */
@RequiresPostgres
class PostgresInspectionPlanTests {

	private static PostgresFixture fixture;

	@BeforeAll
	static void fill() {
		fixture = new PostgresFixture();
		String table = fixture.table();
		PostgresDatabase.execute("INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq)"
				+ " SELECT 'q', 'w' || g, 0, g % 5, now() + interval '1 hour' + g * interval '1 ms', g"
				+ " FROM generate_series(1, 200000) g;" + " INSERT INTO " + table
				+ " (queue, item, state, priority, ready_at, seq)"
				+ " SELECT 'q', 'r' || g, 0, g % 5, now() - interval '1 hour' + g * interval '1 ms', 200000 + g"
				+ " FROM generate_series(1, 1000) g;" + " INSERT INTO " + table
				+ " (queue, item, state, priority, ready_at, seq, token, holder)"
				+ " SELECT 'q', 'p' || g, 1, 0, now() - interval '2 hours', 300000 + g, g, 'h'"
				+ " FROM generate_series(1, 100) g;" + " INSERT INTO " + table
				+ "_lease SELECT g, 'q', 'p' || g, 'h', now() + interval '30 s'" + " FROM generate_series(1, 100) g;"
				+ " INSERT INTO " + table + "_limit (queue, kind, item, count, expires_at)"
				+ " SELECT 'q', 'failures:attempts', 'w' || g, 1, now() + interval '1 hour'"
				+ " FROM generate_series(1, 10000) g;" + " INSERT INTO " + table
				+ "_given_up SELECT 'q', 'g' || g, 1, 'x', 'h', now() - g * interval '1 s'"
				+ " FROM generate_series(1, 10000) g;" + " ANALYZE " + table + "; ANALYZE " + table + "_lease; ANALYZE "
				+ table + "_given_up; ANALYZE " + table + "_limit");
	}

	@AfterAll
	static void drop() {
		fixture.close();
	}

	@Test
	void eachListReadsItsFirstPageThroughAnIndex() throws SQLException {
		String table = fixture.table();
		for (ReadyOrder order : ReadyOrder.values()) {
			QueueSql sql = new QueueSql(table, order, false, true);
			String ready = plan(sql.itemsReady);
			assertThat(ready).as(order + " ready")
				.containsPattern("Index Scan using " + table + "_(due|ready) on " + table + " r")
				.doesNotContain("Seq Scan on " + table + " ");
			assertThat(plan(sql.itemsWaiting)).as("waiting")
				.contains("Index Scan using " + table + "_due on " + table + " r")
				.doesNotContain("Seq Scan on " + table + " ");
			assertThat(plan(sql.itemsProcessing)).as("processing")
				.contains("Index Scan using " + table + "_leases on " + table + " r")
				.doesNotContain("Seq Scan on " + table + " ");
			assertThat(plan(sql.itemsGivenUp)).as("given up")
				.contains("Index Scan Backward using " + table + "_givenup_at on " + table + "_given_up g")
				.doesNotContain("Seq Scan");
		}
		assertThat(plan(new QueueSql(table, ReadyOrder.FIFO, false, true).itemsReady)).as("FIFO ready")
			.contains("Index Scan using " + table + "_due on " + table + " r");
	}

	@Test
	void everyClaimReadsThePauseOnceThroughThePrimaryKey() throws SQLException {
		String table = fixture.table();
		for (ReadyOrder order : ReadyOrder.values()) {
			for (boolean starving : new boolean[] { false, true }) {
				QueueSql sql = new QueueSql(table, order, starving, true);
				for (SqlStatement claim : List.of(sql.claim, sql.doneAndClaim)) {
					String plan = plan(claim);
					assertThat(plan).as(claim.name())
						.contains("Index Only Scan using " + table + "_limit_pkey on " + table + "_limit p")
						.contains("One-Time Filter");
					assertThat(plan.split("_limit p", -1)).as(claim.name() + ": one probe per guarded pick")
						.hasSize(starving ? 3 : 2);
				}
			}
		}
	}

	/** The plan of a statement, run with the parameters of a first page. */
	private static String plan(SqlStatement sql) throws SQLException {
		return StatementPlans.explain(sql, PostgresInspectionPlanTests::bind);
	}

	private static void bind(SqlStatement sql, PreparedStatement statement, String parameter) throws SQLException {
		switch (parameter) {
			case "now" -> sql.setNull(statement, parameter, Types.DOUBLE);
			case "queue" -> sql.setString(statement, parameter, "q");
			case "holder" -> sql.setString(statement, parameter, "h");
			case "limit" -> sql.setInt(statement, parameter, 100);
			case "offset" -> sql.setInt(statement, parameter, 0);
			case "retention", "lease", "starvation" -> sql.setLong(statement, parameter, 60_000_000);
			case "items", "forget_items", "forget_kinds" ->
				sql.setArray(statement, parameter, statement.getConnection().createArrayOf("text", new String[0]));
			case "tokens" ->
				sql.setArray(statement, parameter, statement.getConnection().createArrayOf("bigint", new Long[0]));
			default -> throw new IllegalArgumentException("parameter " + parameter);
		}
	}

}
