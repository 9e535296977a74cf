package dev.workqueue.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
 * A user without the privileges the queue needs (a role of the test's own, dropped
 * after): each call fails with {@link Reason#NO_PERMISSION}, naming the queue, the table
 * and what to grant, and with exactly those grants the queue works, with the defaults
 * (listening, vacuuming: the keeper may not vacuum a table it does not own, and carries
 * on).
 */
@RequiresPostgres
class PostgresPermissionTests {

	private static final AtomicInteger counter = new AtomicInteger();

	private final EngineFixture fixture = new EngineFixture();

	private final String role = "wq_user_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet();

	private final List<HikariDataSource> pools = new ArrayList<>();

	PostgresPermissionTests() {
		PostgresDatabase.execute("CREATE ROLE " + this.role + " LOGIN");
	}

	@AfterEach
	void dropRole() {
		try {
			this.fixture.close();
		}
		finally {
			this.pools.forEach(HikariDataSource::close);
			PostgresDatabase.execute("DROP OWNED BY " + this.role + "; DROP ROLE " + this.role);
		}
	}

	/** A handle with the defaults, connected as the test's role. */
	private DelayingQueue<String> handle() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL.replaceAll("user=[^&]*", "user=" + this.role));
		config.setMaximumPoolSize(3);
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		return this.fixture.track(PostgresWorkQueues.builder(pool, ItemCodec.strings())
			.table(this.fixture.table())
			.name("guarded")
			.buildDelayingQueue());
	}

	private void grant(String sql) {
		PostgresDatabase.execute(sql.replace("{t}", this.fixture.table()) + " TO " + this.role);
	}

	@Test
	void aUserWithoutGrantsIsToldWhichQueueAndTableAndWhatToGrant() {
		DelayingQueue<String> queue = handle();
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add("a"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION))
			.withMessageContaining("add to queue 'guarded' (table " + this.fixture.table() + ")")
			.withMessageContaining("permission denied for table " + this.fixture.table())
			.withMessageContaining("USAGE on its _token sequence");
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.poll(Duration.ZERO))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION))
			.withMessageContaining("take from queue 'guarded'");
		assertThat(TestSql.count(this.fixture.table())).isZero();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !queue.capability(SharedWorkQueue.class).orElseThrow().reachable());
	}

	@Test
	void aUserWhoMayNotUseTheSequenceIsToldSo() {
		grant("GRANT SELECT, INSERT, UPDATE, DELETE ON {t}, {t}_lease, {t}_limit");
		DelayingQueue<String> queue = handle();
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add("a"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION))
			.withMessageContaining("permission denied for sequence " + this.fixture.table() + "_token");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void theGrantsTheMessageNamesAreEnough() throws Exception {
		grant("GRANT SELECT, INSERT, UPDATE, DELETE ON {t}, {t}_lease, {t}_limit");
		grant("GRANT USAGE ON SEQUENCE {t}_token");
		DelayingQueue<String> queue = handle();
		queue.add("a");
		queue.addAfter("b", Duration.ofMillis(10));
		assertThat(queue.poll(Duration.ofSeconds(10))).isEqualTo("a");
		queue.add("a");
		queue.done("a");
		assertThat(queue.poll(Duration.ofSeconds(10))).isIn("a", "b");
		assertThat(queue.poll(Duration.ofSeconds(10))).isIn("a", "b");
		queue.done("a");
		queue.done("b");
		assertThat(TestSql.count(this.fixture.table())).isZero();
		assertThat(queue.capability(SharedWorkQueue.class).orElseThrow().reachable()).isTrue();
	}

}
