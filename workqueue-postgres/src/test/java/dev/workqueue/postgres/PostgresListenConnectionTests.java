package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code LISTEN} connection and the pool: by default it is not one of the pool's
 * connections, a terminated one never goes back to a pool, and a shutdown returns once
 * the handle's {@code LISTEN} work has ended, so that the pool may close right after.
 */
@RequiresPostgres
class PostgresListenConnectionTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private final PostgresFixture fixture = new PostgresFixture();

	private final List<DelayingQueue<String>> queues = new ArrayList<>();

	private final HikariDataSource pool = pool();

	@AfterEach
	void close() {
		try {
			this.queues.forEach(DelayingQueue::shutDown);
			this.pool.close();
		}
		finally {
			this.fixture.close();
		}
	}

	private static HikariDataSource pool() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(2_000);
		return new HikariDataSource(config);
	}

	private PostgresWorkQueues.Builder<String> builder() {
		return PostgresWorkQueues.builder(this.pool, ItemCodec.strings())
			.table(this.fixture.table())
			.name("listening")
			.vacuum(VacuumPolicy.NEVER)
			.pollInterval(Duration.ofMinutes(1));
	}

	private DelayingQueue<String> track(DelayingQueue<String> queue) {
		this.queues.add(queue);
		return queue;
	}

	/** Borrows every idle connection at once and runs a query on each. */
	private int useEveryIdleConnection(List<String> dead) throws SQLException {
		List<Connection> borrowed = new ArrayList<>();
		try {
			while (this.pool.getHikariPoolMXBean().getIdleConnections() > 0) {
				Connection connection = this.pool.getConnection();
				borrowed.add(connection);
				try (Statement statement = connection.createStatement();
						ResultSet rows = statement.executeQuery("SELECT 1")) {
					rows.next();
				}
				catch (SQLException ex) {
					dead.add(ex.getSQLState() + ": " + ex.getMessage());
				}
			}
		}
		finally {
			for (Connection connection : borrowed) {
				connection.close();
			}
		}
		return borrowed.size();
	}

	private static String take(DelayingQueue<String> queue) {
		try {
			return queue.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private Notices listening(Object key) {
		await().atMost(SOON).until(() -> {
			Notices notices = Notices.shared(key);
			return notices != null && notices.listening().contains(Notices.channel(this.fixture.table()));
		});
		return Notices.shared(key);
	}

	/** Waits until the LISTEN connection of {@code key} is open, listening or not. */
	private static Notices connected(Object key) {
		await().atMost(SOON).until(() -> {
			Notices notices = Notices.shared(key);
			return notices != null && notices.backendPid() != 0;
		});
		return Notices.shared(key);
	}

	/**
	 * A handle listens once a consumer of its looks for work, not while it only adds:
	 * PostgreSQL wakes every backend that listens in the database for each notifying
	 * commit there, and that backend reads the notices in a transaction of its own (in
	 * PostgresLatencyBenchmark the producer's LISTEN connection cost a commit per item).
	 */
	@Test
	void aHandleThatOnlyAddsDoesNotListenUntilAConsumerLooks() throws Exception {
		DelayingQueue<String> queue = track(builder().buildDelayingQueue());
		queue.add("a");
		queue.add("b");
		Notices notices = connected(this.pool);
		// The listener thread applies a subscription within one wait: three pass.
		await().during(Duration.ofMillis(3 * Notices.WAIT_MILLIS))
			.atMost(SOON)
			.until(() -> notices.listening().isEmpty());
		assertThat(queue.get()).isEqualTo("a");
		listening(this.pool);
	}

	@Test
	void aTerminatedListenConnectionNeverGoesBackToThePoolAndWakeUpsResume() throws Exception {
		terminateTheListenConnection(this.pool, builder());
	}

	@Test
	void aTerminatedListenConnectionTakenFromThePoolIsDiscarded() throws Exception {
		Supplier<Connection> fromThePool = () -> {
			try {
				return this.pool.getConnection();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		};
		terminateTheListenConnection(fromThePool, builder().listenConnection(fromThePool));
	}

	/**
	 * Terminates the LISTEN connection of two handles built with {@code builder}, whose
	 * notices are shared under {@code key}: no connection of the pool is dead after, the
	 * handles' adds work, and wake-ups resume.
	 */
	private void terminateTheListenConnection(Object key, PostgresWorkQueues.Builder<String> builder) throws Exception {
		DelayingQueue<String> producer = track(builder.buildDelayingQueue());
		DelayingQueue<String> consumer = track(builder.buildDelayingQueue());
		// Its consumer looks, so the handle listens.
		CompletableFuture<String> got = CompletableFuture.supplyAsync(() -> take(consumer));
		Notices notices = listening(key);
		int pid = notices.backendPid();
		assertThat(TestSql.queryLong("SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND application_name = ?",
				pid, Notices.APPLICATION_NAME))
			.isEqualTo(1);
		assertThat(
				TestSql.queryLong("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid = ?", pid))
			.isEqualTo(1);
		// Every idle connection of the pool at once, again and again while the listener
		// drops its connection and opens another, and a second after: none is dead.
		Clock clock = Clock.system();
		long untilNanos = Long.MAX_VALUE;
		int borrows = 0;
		List<String> dead = new ArrayList<>();
		while (clock.nanoTime() < untilNanos) {
			borrows += useEveryIdleConnection(dead);
			if (untilNanos == Long.MAX_VALUE && notices.backendPid() != pid && notices.backendPid() != 0) {
				untilNanos = clock.nanoTime() + Duration.ofSeconds(1).toNanos();
			}
		}
		assertThat(dead).as("failures of %d borrows", borrows).isEmpty();
		// The consumer polls once a minute: only a notice wakes it.
		listening(key);
		producer.add("a");
		assertThat(got.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("a");
	}

	@Test
	void theListenConnectionIsNotOneOfThePools() {
		track(builder().buildDelayingQueue());
		int pid = connected(this.pool).backendPid();
		await().atMost(SOON).until(() -> this.pool.getHikariPoolMXBean().getTotalConnections() == 4);
		assertThat(this.pool.getHikariPoolMXBean().getActiveConnections()).isZero();
		assertThat(pid).isNotZero();
	}

	@Test
	void aShutDownReturnsOnceItsListenWorkEndedSoThePoolMayCloseAtOnce() throws Exception {
		HikariDataSource own = pool();
		try (LogRecords notices = new LogRecords(Notices.class);
				LogRecords senders = new LogRecords(NoticeSender.class);
				LogRecords keepers = new LogRecords(LeaseKeeper.class)) {
			// LISTEN on one of the pool's own connections, as an application may give it.
			DelayingQueue<String> queue = PostgresWorkQueues.builder(own, ItemCodec.strings())
				.table(this.fixture.table())
				.name("closing")
				.vacuum(VacuumPolicy.NEVER)
				.listenConnection(() -> {
					try {
						return own.getConnection();
					}
					catch (SQLException ex) {
						throw new IllegalStateException(ex);
					}
				})
				.buildDelayingQueue();
			await().atMost(SOON).until(() -> own.getHikariPoolMXBean().getActiveConnections() == 1);
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.done("a");
			// Its notice may still be on its way.
			queue.add("b");
			queue.shutDown();
			own.close();
			await().during(Duration.ofMillis(1500)).atMost(SOON).untilAsserted(() -> {
				assertThat(notices.count(Level.WARNING) + notices.count(Level.SEVERE)).isZero();
				assertThat(senders.count(Level.WARNING) + senders.count(Level.SEVERE)).isZero();
				assertThat(keepers.count(Level.WARNING) + keepers.count(Level.SEVERE)).isZero();
			});
		}
		finally {
			own.close();
		}
	}

}
