package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The add a listening handle runs in the caller's transaction carries its {@code NOTIFY}:
 * heard once the transaction commits, never when it rolls back, and not sent for an add
 * that changed nothing, made the item dirty, or only stored a trace context; with no
 * channel (a handle that does not listen) the same statement sends none. (The statement
 * on its own: the handles of these tests do not listen.)
 */
@RequiresPostgres
class NotifyingAddTests {

	private final PostgresFixture fixture = new PostgresFixture();

	private final String channel = "wq_notify_test_" + ProcessHandle.current().pid();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	@Test
	void theNoticeIsHeardAtTheCommitAndNeverAfterARollback() throws Exception {
		QueueSql sql = new QueueSql(this.fixture.table(), ReadyOrder.FIFO, false, true);
		try (Connection listener = PostgresDatabase.connect(); Connection caller = PostgresDatabase.connect()) {
			try (Statement statement = listener.createStatement()) {
				statement.execute("LISTEN " + this.channel);
			}
			PGConnection notices = listener.unwrap(PGConnection.class);
			caller.setAutoCommit(false);
			assertThat(add(caller, sql, "a", this.channel)).isTrue();
			assertThat(notices.getNotifications(200)).as("not before the commit").isEmpty();
			caller.commit();
			PGNotification[] heard = notices.getNotifications(5000);
			assertThat(heard).hasSize(1);
			assertThat(heard[0].getParameter()).isEqualTo("payload-a");
			assertThat(add(caller, sql, "b", this.channel)).isTrue();
			caller.rollback();
			assertThat(add(caller, sql, "a", this.channel)).as("queued already: nothing changed").isFalse();
			caller.commit();
			assertThat(notices.getNotifications(500)).isEmpty();
		}
	}

	@Test
	void withoutAChannelTheSameStatementAddsAndSendsNothing() throws Exception {
		QueueSql sql = new QueueSql(this.fixture.table(), ReadyOrder.FIFO, false, true);
		try (Connection listener = PostgresDatabase.connect(); Connection caller = PostgresDatabase.connect()) {
			try (Statement statement = listener.createStatement()) {
				statement.execute("LISTEN " + this.channel);
			}
			PGConnection notices = listener.unwrap(PGConnection.class);
			assertThat(add(caller, sql, "a", null)).isTrue();
			assertThat(addTraced(caller, sql, "b", "request", null)).isTrue();
			assertThat(notices.getNotifications(500)).isEmpty();
			assertThat(TestSql.count(this.fixture.table())).isEqualTo(2);
			assertThat(add(caller, sql, "c", this.channel)).as("the same statement, given the channel").isTrue();
			assertThat(notices.getNotifications(5000)).hasSize(1);
		}
	}

	@Test
	void aTracedAddNotifiesOnlyWhenItChangedMoreThanTheContexts() throws Exception {
		QueueSql sql = new QueueSql(this.fixture.table(), ReadyOrder.FIFO, false, true);
		try (Connection listener = PostgresDatabase.connect(); Connection caller = PostgresDatabase.connect()) {
			try (Statement statement = listener.createStatement()) {
				statement.execute("LISTEN " + this.channel);
			}
			PGConnection notices = listener.unwrap(PGConnection.class);
			assertThat(addTraced(caller, sql, "a", "request", this.channel)).as("changed").isTrue();
			assertThat(notices.getNotifications(5000)).hasSize(1);
			assertThat(addTraced(caller, sql, "a", "later", this.channel)).as("queued already: only a link").isFalse();
			assertThat(notices.getNotifications(500)).isEmpty();
			assertThat(TestSql.queryString("SELECT trace FROM " + this.fixture.table() + " WHERE item = 'a'"))
				.isEqualTo("request\nlater");
		}
	}

	@Test
	void anAddThatMadeAnItemBeingProcessedDirtySendsNone() throws Exception {
		QueueSql sql = new QueueSql(this.fixture.table(), ReadyOrder.FIFO, false, true);
		processing("a");
		processing("b");
		try (Connection listener = PostgresDatabase.connect(); Connection caller = PostgresDatabase.connect()) {
			try (Statement statement = listener.createStatement()) {
				statement.execute("LISTEN " + this.channel);
			}
			PGConnection notices = listener.unwrap(PGConnection.class);
			caller.setAutoCommit(false);
			assertThat(add(caller, sql, "a", this.channel)).as("made dirty").isTrue();
			assertThat(addTraced(caller, sql, "b", "request", this.channel)).as("made dirty").isTrue();
			caller.commit();
			// Committed after them: a notice of theirs would be heard first.
			assertThat(add(caller, sql, "c", this.channel)).isTrue();
			caller.commit();
			PGNotification[] heard = notices.getNotifications(5000);
			assertThat(heard).extracting(PGNotification::getParameter).containsExactly("payload-c");
			assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table()
					+ " WHERE item IN ('a', 'b') AND state = 1 AND dirty_at IS NOT NULL"))
				.isEqualTo(2);
		}
	}

	/** Puts an item in the table as a claim leaves it: being processed, not dirty. */
	private void processing(String item) {
		String table = this.fixture.table();
		TestSql.update("INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq, token, holder)"
				+ " VALUES ('notified', ?, 1, 0, now(), nextval('" + table + "_token'), nextval('" + table
				+ "_token'), 'holder')", item);
	}

	/**
	 * Runs the traced add, notifying {@code channel} unless null; returns whether it
	 * changed the item's place.
	 */
	private boolean addTraced(Connection connection, QueueSql sql, String item, String context, String channel)
			throws Exception {
		SqlStatement add = sql.addTraced;
		try (PreparedStatement statement = add.prepare(connection)) {
			add.setNull(statement, "now", java.sql.Types.DOUBLE);
			add.setString(statement, "queue", "notified");
			add.setString(statement, "item", item);
			add.setInt(statement, "priority", 0);
			add.setLong(statement, "delay", 0);
			add.setString(statement, "trace", context);
			add.setString(statement, "channel", channel);
			add.setString(statement, "payload", "payload-" + item);
			try (ResultSet row = statement.executeQuery()) {
				assertThat(row.next()).as("the row was written").isTrue();
				return Added.read(row, 1, true).changed();
			}
		}
	}

	/**
	 * Runs the add, notifying {@code channel} unless null; returns whether it changed the
	 * row.
	 */
	private boolean add(Connection connection, QueueSql sql, String item, String channel) throws Exception {
		SqlStatement add = sql.add;
		try (PreparedStatement statement = add.prepare(connection)) {
			add.setNull(statement, "now", java.sql.Types.DOUBLE);
			add.setString(statement, "queue", "notified");
			add.setString(statement, "item", item);
			add.setInt(statement, "priority", 0);
			add.setLong(statement, "delay", 0);
			add.setString(statement, "channel", channel);
			add.setString(statement, "payload", "payload-" + item);
			try (ResultSet row = statement.executeQuery()) {
				return row.next();
			}
		}
	}

}
