package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The handle on a pool of its own whose connections the server may end, or whose
 * statements time out on a lock (lock_timeout, statement_timeout): a call fails naming
 * the queue and what happened, loses nothing acknowledged, and the handle recovers by
 * itself.
 */
@RequiresPostgres
class PostgresConnectionTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private final EngineFixture fixture = new EngineFixture();

	private final String application = "wq-engine-" + ProcessHandle.current().pid();

	private HikariDataSource pool;

	@AfterEach
	void close() {
		try {
			this.fixture.close();
		}
		finally {
			if (this.pool != null) {
				this.pool.close();
			}
		}
	}

	private DelayingQueue<String> handle(String options) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(4);
		config.addDataSourceProperty("ApplicationName", this.application);
		if (options != null) {
			config.addDataSourceProperty("options", options);
		}
		this.pool = new HikariDataSource(config);
		return this.fixture.track(PostgresWorkQueues.builder(this.pool, ItemCodec.strings())
			.table(this.fixture.table())
			.name("connections")
			.lease(Duration.ofSeconds(3))
			.listen(false)
			.vacuum(VacuumPolicy.NEVER)
			.buildDelayingQueue());
	}

	@Test
	void connectionsEndedByTheServerCostACallAtMostAndLoseNothing() throws Exception {
		DelayingQueue<String> queue = handle(null);
		queue.add("a");
		queue.add("b");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		TestSql.queryLong("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?",
				this.application);
		await().atMost(SOON).until(() -> {
			try {
				queue.add("c");
				return true;
			}
			catch (PostgresQueueException ex) {
				assertThat(ex.reason()).isEqualTo(Reason.UNREACHABLE);
				assertThat(ex).hasMessageContaining("queue 'connections'");
				return false;
			}
		});
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("b");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("c");
		// The lease of a, held across the outage, is still renewed: nobody else gets it.
		long leaseMicros = leaseUntilMicros("a");
		await().atMost(SOON).until(() -> leaseUntilMicros("a") > leaseMicros);
		for (String item : new String[] { "a", "b", "c" }) {
			queue.done(item);
		}
		assertThat(TestSql.count(this.fixture.table())).isZero();
		await().atMost(SOON).until(() -> queue.capability(SharedWorkQueue.class).orElseThrow().reachable());
	}

	@Test
	void anAddBlockedByAnotherTransactionsLockFailsOnTheLockTimeoutAndWorksOnceItIsReleased() throws Exception {
		DelayingQueue<String> queue = handle("-c lock_timeout=300");
		queue.add("x");
		try (Connection other = PostgresDatabase.connect()) {
			other.setAutoCommit(false);
			try (Statement statement = other.createStatement()) {
				statement.execute("SELECT * FROM " + this.fixture.table() + " WHERE item = 'x' FOR UPDATE");
			}
			assertThatExceptionOfType(PostgresQueueException.class)
				.isThrownBy(() -> queue.addAfter("x", Duration.ofSeconds(5)))
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.UNREACHABLE))
				.withMessageContaining("add to queue 'connections'")
				.withMessageContaining("55P03");
			other.rollback();
		}
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		queue.done("x");
	}

	@Test
	void aStatementTimeoutFailsTheCallSayingSoLosesNothingAndTheQueueRecovers() throws Exception {
		DelayingQueue<String> queue = handle("-c statement_timeout=500");
		queue.add("a");
		queue.add("b");
		try (Connection other = PostgresDatabase.connect()) {
			other.setAutoCommit(false);
			try (Statement statement = other.createStatement()) {
				statement.execute("LOCK TABLE " + this.fixture.table() + " IN ACCESS EXCLUSIVE MODE");
			}
			assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add("c"))
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.UNREACHABLE))
				.withMessageContaining("add to queue 'connections' (table " + this.fixture.table() + ")")
				.withMessageContaining("statement_timeout")
				.withMessageContaining("57014");
			assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.poll(Duration.ZERO))
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.UNREACHABLE))
				.withMessageContaining("take from queue 'connections'");
			await().atMost(SOON).until(() -> !queue.capability(SharedWorkQueue.class).orElseThrow().reachable());
			other.rollback();
		}
		queue.add("c");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("b");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("c");
		assertThat(queue.poll(Duration.ZERO)).isNull();
		for (String item : new String[] { "a", "b", "c" }) {
			queue.done(item);
		}
		assertThat(TestSql.count(this.fixture.table())).isZero();
		await().atMost(SOON).until(() -> queue.capability(SharedWorkQueue.class).orElseThrow().reachable());
	}

	private long leaseUntilMicros(String item) {
		return TestSql.leaseUntilMicros(this.fixture.table(), item);
	}

}
