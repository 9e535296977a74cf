package dev.workqueue.postgres;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * P2: clocks given to the builders of two instances, whose readings count from origins a
 * year apart (as two JVMs' {@link Clock#system()} count from their own start), are each
 * anchored on the database's time, so the instances agree: an add is visible to the other
 * at once, a delay falls due on time for the other, and a live lease is never reaped by
 * the other.
 */
@RequiresPostgres
class PostgresGivenClockTests {

	private static final long YEAR_NANOS = Duration.ofDays(365).toNanos();

	private static final Duration SOON = Duration.ofSeconds(5);

	private final EngineFixture fixture = new EngineFixture();

	/** This JVM's system clock, as a JVM started long ago reads it. */
	private final Clock older = () -> Clock.system().nanoTime() + YEAR_NANOS;

	/** The same time line, as a JVM started just now reads it. */
	private final Clock younger = () -> Clock.system().nanoTime();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> handle(Clock clock) {
		return this.fixture.track(this.fixture.builder("agreed")
			.clock(clock)
			.lease(Duration.ofSeconds(2))
			.pollInterval(Duration.ofMillis(100))
			.buildDelayingQueue());
	}

	@Test
	void anAddByOneInstanceIsVisibleToTheOtherAtOnce() throws InterruptedException {
		DelayingQueue<String> older = handle(this.older);
		DelayingQueue<String> younger = handle(this.younger);
		older.add("from the older");
		assertThat(younger.poll(Duration.ZERO)).isEqualTo("from the older");
		younger.add("from the younger");
		assertThat(older.poll(Duration.ZERO)).isEqualTo("from the younger");
	}

	@Test
	void aDelayMadeByOneInstanceFallsDueOnTimeForTheOther() throws InterruptedException {
		DelayingQueue<String> older = handle(this.older);
		DelayingQueue<String> younger = handle(this.younger);
		long addedNanos = Clock.system().nanoTime();
		older.addAfter("delayed", Duration.ofMillis(500));
		assertThat(younger.poll(Duration.ZERO)).as("not due yet").isNull();
		await().atMost(SOON).until(() -> "delayed".equals(younger.poll(Duration.ZERO)));
		assertThat(Clock.system().nanoTime() - addedNanos).as("not early")
			.isGreaterThanOrEqualTo(Duration.ofMillis(450).toNanos());
	}

	@Test
	void aLiveLeaseOfOneInstanceIsNeverReapedByTheOther() throws InterruptedException {
		DelayingQueue<String> younger = handle(this.younger);
		DelayingQueue<String> older = handle(this.older);
		younger.add("held");
		assertThat(younger.poll(Duration.ZERO)).isEqualTo("held");
		long token = TestSql.token(this.fixture.table(), "held");
		// The older instance's keeper reaps every 100 ms: over four leases' renewals, the
		// younger one keeps its lease.
		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> {
			Long now = TestSql.token(this.fixture.table(), "held");
			return now != null && now == token && older.poll(Duration.ZERO) == null;
		});
		younger.done("held");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

}
