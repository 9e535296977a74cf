package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch of adds a listening handle commits on its own ({@code add_batch.sql} and its
 * traced twin) carries its {@code NOTIFY}: one per statement however many items it
 * queued, with the earliest due time among them (0 when one is ready) and the handle's
 * stamp; none for a batch that queued nothing (nothing changed, items being processed
 * made dirty, only trace contexts stored), and none without a channel.
 */
@RequiresPostgres
class NotifyingAddBatchTests {

	private static final String STAMP = "/handle-1:batched";

	private final PostgresFixture fixture = new PostgresFixture();

	private final String channel = "wq_notify_batch_test_" + ProcessHandle.current().pid();

	private final QueueSql sql = new QueueSql(this.fixture.table(), ReadyOrder.FIFO, false, true);

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	@Test
	void aBatchSendsOneNoticeWithTheEarliestDueTimeAndTheStamp() throws Exception {
		try (Connection listener = listening(); Connection caller = PostgresDatabase.connect()) {
			PGConnection notices = listener.unwrap(PGConnection.class);
			assertThat(
					addBatch(caller, List.of("a", "b", "c"), List.of(3_600_000_000L, 0L, 7_200_000_000L), this.channel))
				.isEqualTo(3);
			assertThat(heard(notices)).containsExactly("0" + STAMP);
			assertThat(addBatch(caller, List.of("d", "e"), List.of(7_200_000_000L, 3_600_000_000L), this.channel))
				.isEqualTo(2);
			long eDueMillis = TestSql.queryLong("SELECT (extract(epoch FROM ready_at) * 1000000)::bigint / 1000 FROM "
					+ this.fixture.table() + " WHERE item = 'e'");
			assertThat(heard(notices)).as("the earlier of two waits").containsExactly(eDueMillis + STAMP);
		}
	}

	@Test
	void aBatchThatQueuedNothingSendsNone() throws Exception {
		processing("p");
		try (Connection listener = listening(); Connection caller = PostgresDatabase.connect()) {
			PGConnection notices = listener.unwrap(PGConnection.class);
			assertThat(addBatch(caller, List.of("a"), List.of(0L), this.channel)).isOne();
			assertThat(heard(notices)).hasSize(1);
			assertThat(addBatch(caller, List.of("a"), List.of(0L), this.channel)).as("queued already").isZero();
			assertThat(addBatch(caller, List.of("p"), List.of(0L), this.channel)).as("made dirty").isOne();
			assertThat(addTracedBatch(caller, "a", "request", this.channel)).as("only a context stored").isOne();
			assertThat(addBatch(caller, List.of("b"), List.of(0L), null)).as("no channel").isOne();
			assertThat(addTracedBatch(caller, "c", "request", null)).as("no channel").isOne();
			assertThat(notices.getNotifications(500)).isEmpty();
			assertThat(addTracedBatch(caller, "d", "request", this.channel)).isOne();
			assertThat(heard(notices)).as("a traced add that queued its item").containsExactly("0" + STAMP);
		}
	}

	private Connection listening() throws Exception {
		Connection listener = PostgresDatabase.connect();
		try (Statement statement = listener.createStatement()) {
			statement.execute("LISTEN " + this.channel);
		}
		return listener;
	}

	/** Waits for the next notices and returns their payloads. */
	private static List<String> heard(PGConnection notices) throws Exception {
		PGNotification[] heard = notices.getNotifications(5000);
		return (heard != null) ? Arrays.stream(heard).map(PGNotification::getParameter).toList() : List.of();
	}

	/** Puts an item in the table as a claim leaves it: being processed, not dirty. */
	private void processing(String item) {
		String table = this.fixture.table();
		TestSql.update("INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq, token, holder)"
				+ " VALUES ('batched', ?, 1, 0, now(), nextval('" + table + "_token'), nextval('" + table
				+ "_token'), 'holder')", item);
	}

	/** Runs the batch on its own (auto-commit); returns how many rows it wrote. */
	private int addBatch(Connection connection, List<String> items, List<Long> delays, String channel)
			throws Exception {
		SqlStatement add = this.sql.addBatch;
		try (PreparedStatement statement = add.prepare(connection)) {
			add.setNull(statement, "now", Types.DOUBLE);
			add.setString(statement, "queue", "batched");
			add.setArray(statement, "items", connection.createArrayOf("text", items.toArray()));
			add.setArray(statement, "priorities",
					connection.createArrayOf("integer", items.stream().map((item) -> 0).toArray()));
			add.setArray(statement, "delays", connection.createArrayOf("bigint", delays.toArray()));
			add.setString(statement, "channel", channel);
			add.setString(statement, "stamp", STAMP);
			return rows(statement);
		}
	}

	/** Runs the traced batch of one add on its own; returns how many rows it wrote. */
	private int addTracedBatch(Connection connection, String item, String context, String channel) throws Exception {
		SqlStatement add = this.sql.addBatchTraced;
		try (PreparedStatement statement = add.prepare(connection)) {
			add.setNull(statement, "now", Types.DOUBLE);
			add.setString(statement, "queue", "batched");
			add.setArray(statement, "items", connection.createArrayOf("text", new Object[] { item }));
			add.setArray(statement, "priorities", connection.createArrayOf("integer", new Object[] { 0 }));
			add.setArray(statement, "delays", connection.createArrayOf("bigint", new Object[] { 0L }));
			add.setArray(statement, "traces", connection.createArrayOf("text", new Object[] { context }));
			add.setString(statement, "channel", channel);
			add.setString(statement, "stamp", STAMP);
			return rows(statement);
		}
	}

	private static int rows(PreparedStatement statement) throws Exception {
		int rows = 0;
		try (ResultSet result = statement.executeQuery()) {
			while (result.next()) {
				rows++;
			}
		}
		return rows;
	}

}
