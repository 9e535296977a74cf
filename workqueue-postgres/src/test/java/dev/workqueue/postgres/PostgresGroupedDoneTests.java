package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements that end a group of leases at once ({@code done.sql},
 * {@code done_claim.sql}) fence each lease by its token: a stale lease in a group (it ran
 * out, and another handle holds the item now) changes nothing, while the others end.
 */
@RequiresPostgres
class PostgresGroupedDoneTests {

	private final EngineFixture fixture = new EngineFixture();

	private QueueSql sql;

	/** The tokens this test's first handle holds a, b and c by; b's is stale. */
	private long a;

	private long b;

	private long c;

	private long othersB;

	@BeforeEach
	void holdThreeOfWhichOneIsLost() throws Exception {
		this.sql = new QueueSql(this.fixture.table(), ReadyOrder.FIFO, false, true);
		DelayingQueue<String> worker = this.fixture.track(this.fixture.builder("grouped").buildDelayingQueue());
		List.of("a", "b", "c", "d").forEach(worker::add);
		this.a = held(worker, "a");
		this.b = held(worker, "b");
		this.c = held(worker, "c");
		// b's lease runs out, and another handle claims it.
		TestSql.expireLeaseByHand(this.fixture.table(), "b");
		DelayingQueue<String> other = this.fixture.track(this.fixture.builder("grouped").buildDelayingQueue());
		assertThat(other.poll(Duration.ZERO)).isEqualTo("b");
		this.othersB = TestSql.token(this.fixture.table(), "b");
	}

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	@Test
	void aGroupedDoneEndsEveryLeaseButAStaleOne() throws Exception {
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = this.sql.done.prepare(connection)) {
			bindDones(this.sql.done, statement);
			try (ResultSet row = statement.executeQuery()) {
				assertThat(row.next()).isTrue();
				assertThat(row.getLong(1)).as("rows ended").isEqualTo(2);
			}
		}
		assertStaleLeaseChangedNothing();
	}

	@Test
	void aGroupedDoneAndClaimEndsEveryLeaseButAStaleOneThenClaims() throws Exception {
		List<String> claimed = new ArrayList<>();
		try (Connection connection = PostgresDatabase.connect();
				PreparedStatement statement = this.sql.doneAndClaim.prepare(connection)) {
			bindDones(this.sql.doneAndClaim, statement);
			this.sql.doneAndClaim.setInt(statement, "limit", 5);
			this.sql.doneAndClaim.setString(statement, "holder", "test-holder");
			this.sql.doneAndClaim.setLong(statement, "lease", 30_000_000L);
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					claimed.add(rows.getString(1));
					assertThat(rows.getLong(8)).as("rows ended").isEqualTo(2);
				}
			}
		}
		assertThat(claimed).containsExactly("d");
		assertStaleLeaseChangedNothing();
	}

	private void bindDones(SqlStatement sql, PreparedStatement statement) throws SQLException {
		Connection connection = statement.getConnection();
		sql.setNull(statement, "now", Types.DOUBLE);
		sql.setString(statement, "queue", "grouped");
		sql.setArray(statement, "items", connection.createArrayOf("text", new String[] { "a", "b", "c" }));
		sql.setArray(statement, "tokens", QueueDatabase.bigints(connection, new long[] { this.a, this.b, this.c }));
		sql.setArray(statement, "forget_items", connection.createArrayOf("text", new String[0]));
		sql.setArray(statement, "forget_kinds", connection.createArrayOf("text", new String[0]));
	}

	private void assertStaleLeaseChangedNothing() {
		String table = this.fixture.table();
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + table + " WHERE item IN ('a', 'c')")).isZero();
		assertThat(TestSql.token(table, "b")).as("the other handle's lease").isEqualTo(this.othersB);
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + table + "_lease WHERE item = 'b' AND token = ?",
				this.othersB))
			.isOne();
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + table + "_lease WHERE item IN ('a', 'c')")).isZero();
	}

	private long held(DelayingQueue<String> worker, String item) throws InterruptedException {
		assertThat(worker.poll(Duration.ZERO)).isEqualTo(item);
		return TestSql.token(this.fixture.table(), item);
	}

}
