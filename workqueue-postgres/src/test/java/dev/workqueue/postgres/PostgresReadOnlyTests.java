package dev.workqueue.postgres;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A read-only database, as a standby after a failover says it (a role of the test's own
 * with {@code default_transaction_read_only = on}, dropped after): every write is
 * {@link Reason#READ_ONLY}, said plainly, health reports it, the handle's timed work
 * backs off however fast its consumers fail, and the queue works again once its
 * connections take writes.
 */
@RequiresPostgres
class PostgresReadOnlyTests {

	private static final AtomicInteger counter = new AtomicInteger();

	private final EngineFixture fixture = new EngineFixture();

	private final String role = "wq_ro_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet();

	private final HikariDataSource pool;

	/** Connections the handle's lease keeper took. */
	private final AtomicInteger keeperConnections = new AtomicInteger();

	PostgresReadOnlyTests() {
		PostgresDatabase.execute("CREATE ROLE " + this.role + " LOGIN; GRANT ALL ON " + this.fixture.table() + ", "
				+ this.fixture.table() + "_lease, " + this.fixture.table() + "_limit, " + this.fixture.table()
				+ "_token TO " + this.role + "; ALTER ROLE " + this.role + " SET default_transaction_read_only = on");
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL.replaceAll("user=[^&]*", "user=" + this.role));
		config.setMaximumPoolSize(3);
		this.pool = new HikariDataSource(config);
	}

	@AfterEach
	void dropRole() {
		try {
			this.fixture.close();
		}
		finally {
			this.pool.close();
			PostgresDatabase.execute("DROP OWNED BY " + this.role + "; DROP ROLE " + this.role);
		}
	}

	@Test
	void aReadOnlyDatabaseIsItsOwnReasonBacksOffAndRecovers() {
		ProbedDataSource counted = new ProbedDataSource(() -> {
			if (Thread.currentThread().getName().endsWith("-leases")) {
				this.keeperConnections.incrementAndGet();
			}
			return this.pool.getConnection();
		});
		DelayingQueue<String> queue = this.fixture.track(PostgresWorkQueues.builder(counted, ItemCodec.strings())
			.table(this.fixture.table())
			.name("standby")
			.listen(false)
			.vacuum(VacuumPolicy.NEVER)
			.buildDelayingQueue());
		SharedWorkQueue shared = queue.capability(SharedWorkQueue.class).orElseThrow();
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add("a"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.READ_ONLY))
			.withMessageContaining("add to queue 'standby' (table " + this.fixture.table() + ")")
			.withMessageContaining("the database is read-only (a standby, or default_transaction_read_only)")
			.withMessageContaining("SQLSTATE 25006");
		// Consumers failing as fast as they can: each failed claim asks the keeper to
		// look
		// for lost leases, which must not drive it at their speed.
		Clock clock = Clock.system();
		long endNanos = clock.nanoTime() + Duration.ofSeconds(3).toNanos();
		int polls = 0;
		while (clock.nanoTime() < endNanos) {
			assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.poll(Duration.ZERO))
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.READ_ONLY));
			polls++;
		}
		assertThat(polls).isGreaterThan(50);
		// 50 ms doubling, capped at a third of the lease (10 s): about 6 runs in 3 s.
		assertThat(this.keeperConnections.get()).isBetween(1, 12);
		assertThat(shared.failure())
			.isEqualTo("read-only: the database is read-only (a standby, or default_transaction_read_only)");
		assertThat(shared.reachable()).isFalse();

		PostgresDatabase.execute("ALTER ROLE " + this.role + " RESET default_transaction_read_only");
		this.pool.getHikariPoolMXBean().softEvictConnections();
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			queue.add("a");
			assertThat(shared.failure()).isNull();
		});
	}

}
