package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A batch of adds leases its new ready items to the adding handle for its waiting
 * consumers ({@code add_batch_leasing.sql}): at most the limit, the first in the queue's
 * order, each under a token of its own with its lease row written, and only while nothing
 * older is ready and the queue is not paused; a delayed item, or one that had a row, is
 * never leased; a batch that leased all it queued sends no notice.
 */
@RequiresPostgres
class LeasingAddBatchTests {

	private static final String HOLDER = "holder-1";

	private static final long LEASE_MICROS = 60_000_000;

	private final PostgresFixture fixture = new PostgresFixture();

	private final String table = this.fixture.table();

	private final String channel = "wq_lease_batch_test_" + ProcessHandle.current().pid();

	private final QueueSql fifo = new QueueSql(this.table, ReadyOrder.FIFO, false, true);

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	@Test
	void leasesTheFirstNewReadyItemsUpToTheLimitAndQueuesTheRest() throws Exception {
		try (Connection caller = PostgresDatabase.connect()) {
			Map<String, Long> tokens = addBatch(caller, this.fifo, List.of("a", "b", "c"), List.of(0, 0, 0), 2);
			assertThat(tokens).containsOnlyKeys("a", "b", "c");
			assertThat(tokens.get("a")).isNotNull();
			assertThat(tokens.get("b")).isNotNull().isNotEqualTo(tokens.get("a"));
			assertThat(tokens.get("c")).as("beyond the limit").isNull();
		}
		for (String item : List.of("a", "b")) {
			assertThat(TestSql.queryLong("SELECT state FROM " + this.table + " WHERE item = ?", item)).isOne();
			assertThat(TestSql.queryString("SELECT holder FROM " + this.table + " WHERE item = ?", item))
				.isEqualTo(HOLDER);
			assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.table + "_lease l JOIN " + this.table
					+ " r ON r.token = l.token WHERE r.item = ? AND l.holder = ?"
					+ " AND l.lease_until - l.leased_at = interval '60 seconds'", item, HOLDER))
				.as("its lease row")
				.isOne();
		}
		assertThat(TestSql.queryLong("SELECT state FROM " + this.table + " WHERE item = 'c'")).isZero();
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.table + "_lease")).isEqualTo(2);
	}

	@Test
	void aBatchThatLeasedAllItQueuedSendsNoNotice() throws Exception {
		try (Connection listener = PostgresDatabase.connect(); Connection caller = PostgresDatabase.connect()) {
			try (Statement statement = listener.createStatement()) {
				statement.execute("LISTEN " + this.channel);
			}
			PGConnection notices = listener.unwrap(PGConnection.class);
			assertThat(addBatch(caller, this.fifo, List.of("a", "b"), List.of(0, 0), 2).values()).doesNotContainNull();
			assertThat(notices.getNotifications(500)).as("all leased").isEmpty();
			addBatch(caller, this.fifo, List.of("c"), List.of(0), 0);
			assertThat(notices.getNotifications(5000)).as("queued").hasSize(1);
		}
	}

	@Test
	void leasesNothingWhileAnOlderItemIsReadyOrTheQueueIsPaused() throws Exception {
		try (Connection caller = PostgresDatabase.connect()) {
			addBatch(caller, this.fifo, List.of("older"), List.of(0), 0);
			assertThat(addBatch(caller, this.fifo, List.of("newer"), List.of(0), 4).get("newer"))
				.as("an older item is ready")
				.isNull();
			TestSql.update("DELETE FROM " + this.table);
			TestSql.update("INSERT INTO " + this.table + "_limit (queue, kind, item, at, holder, expires_at)"
					+ " VALUES ('leasing', 'paused', '', now(), 'operator', 'infinity')");
			assertThat(addBatch(caller, this.fifo, List.of("x"), List.of(0), 4).get("x")).as("paused").isNull();
			TestSql.update("DELETE FROM " + this.table + "_limit");
			assertThat(addBatch(caller, this.fifo, List.of("y"), List.of(0), 4).get("y")).as("resumed, x is ready")
				.isNull();
			TestSql.update("DELETE FROM " + this.table);
			assertThat(addBatch(caller, this.fifo, List.of("z"), List.of(0), 4).get("z")).isNotNull();
		}
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.table + "_lease")).isOne();
	}

	@Test
	void neverLeasesADelayedItemOrOneThatHadARow() throws Exception {
		String table = this.table;
		TestSql.update("INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq, token, holder)"
				+ " VALUES ('leasing', 'p', 1, 0, now(), nextval('" + table + "_token'), nextval('" + table
				+ "_token'), 'other')");
		try (Connection caller = PostgresDatabase.connect()) {
			addBatch(caller, this.fifo, List.of("w"), List.of(3_600_000_000L), 0);
			Map<String, Long> tokens = addBatch(caller, this.fifo, List.of("d", "p", "w"),
					List.of(3_600_000_000L, 0L, 0L), 4);
			assertThat(tokens).as("a delayed add; a processing item made dirty; a wait made ready")
				.containsOnlyKeys("d", "p", "w");
			assertThat(tokens.values()).containsOnlyNulls();
		}
		assertThat(TestSql.queryString("SELECT holder FROM " + table + " WHERE item = 'p'")).isEqualTo("other");
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + table + "_lease")).isZero();
	}

	@Test
	void leasesNothingWhenAnItemOfTheBatchHadAQueuedRowThatTheBatchMakesReady() throws Exception {
		try (Connection caller = PostgresDatabase.connect()) {
			addBatch(caller, this.fifo, List.of("w"), List.of(3_600_000_000L), 0);
			Map<String, Long> tokens = addBatch(caller, this.fifo, List.of("w", "new"), List.of(0, 0), 4);
			assertThat(tokens).containsOnlyKeys("w", "new");
			assertThat(tokens.values()).as("w lined up before new: new is not handed out first").containsOnlyNulls();
		}
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.table + " WHERE state = 0")).isEqualTo(2);
	}

	@Test
	void anItemAnotherTransactionInsertedMeanwhileIsNeverLeased() throws Exception {
		// Queued ready, queued waiting, and processing (as another handle's leasing add
		// or
		// claim leaves it): the add takes the conflict clause in each.
		for (String row : List.of("0, now(), NULL", "0, now() + interval '1 hour', NULL",
				"1, now(), nextval('" + this.table + "_token')")) {
			TestSql.update("DELETE FROM " + this.table);
			try (Connection other = PostgresDatabase.connect(); Connection caller = PostgresDatabase.connect()) {
				other.setAutoCommit(false);
				try (Statement statement = other.createStatement()) {
					statement.execute("INSERT INTO " + this.table
							+ " (queue, item, state, ready_at, token, priority, seq) VALUES ('leasing', 'x', " + row
							+ ", 0, nextval('" + this.table + "_token'))");
				}
				CompletableFuture<Map<String, Long>> adding = CompletableFuture.supplyAsync(() -> {
					try {
						return addBatch(caller, this.fifo, List.of("x"), List.of(0), 4);
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				});
				// The add's insert waits for the other transaction's row.
				await().atMost(Duration.ofSeconds(10))
					.until(() -> TestSql.queryLong("SELECT count(*) FROM pg_locks WHERE NOT granted") > 0);
				other.commit();
				Map<String, Long> tokens = adding.get(10, TimeUnit.SECONDS);
				assertThat(tokens.get("x")).as("x inserted by another transaction as (%s)", row).isNull();
			}
			assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.table + "_lease")).as(row).isZero();
		}
	}

	@Test
	void aPriorityQueueLeasesItsHighestPrioritiesFirst() throws Exception {
		QueueSql priority = new QueueSql(this.table, ReadyOrder.PRIORITY, false, true);
		try (Connection caller = PostgresDatabase.connect()) {
			Map<String, Long> tokens = addBatch(caller, priority, List.of("low", "high", "mid"), List.of(0, 0, 0),
					List.of(1, 9, 5), 2);
			assertThat(tokens.get("high")).isNotNull();
			assertThat(tokens.get("mid")).isNotNull();
			assertThat(tokens.get("low")).isNull();
		}
	}

	private Map<String, Long> addBatch(Connection connection, QueueSql sql, List<String> items,
			List<? extends Number> delays, int leaseLimit) throws Exception {
		return addBatch(connection, sql, items, delays, items.stream().map((item) -> 0).toList(), leaseLimit);
	}

	/**
	 * Runs a batch on its own (auto-commit), notifying {@link #channel}; returns the
	 * token leased for each item it wrote ({@code null}: not leased).
	 */
	private Map<String, Long> addBatch(Connection connection, QueueSql sql, List<String> items,
			List<? extends Number> delays, List<Integer> priorities, int leaseLimit) throws Exception {
		SqlStatement add = sql.addBatchLeasing;
		Map<String, Long> tokens = new LinkedHashMap<>();
		try (PreparedStatement statement = add.prepare(connection)) {
			add.setNull(statement, "now", Types.DOUBLE);
			add.setString(statement, "queue", "leasing");
			add.setArray(statement, "items", connection.createArrayOf("text", items.toArray()));
			add.setArray(statement, "priorities", connection.createArrayOf("integer", priorities.toArray()));
			add.setArray(statement, "delays",
					connection.createArrayOf("bigint", delays.stream().map(Number::longValue).toArray()));
			add.setInt(statement, "lease_limit", leaseLimit);
			add.setString(statement, "holder", HOLDER);
			add.setLong(statement, "lease", LEASE_MICROS);
			add.setString(statement, "channel", this.channel);
			add.setString(statement, "stamp", "/" + HOLDER + ":leasing");
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					long token = rows.getLong(7);
					Long leased = rows.wasNull() ? null : token;
					tokens.put(rows.getString(1), leased);
				}
			}
		}
		return tokens;
	}

}
