package dev.workqueue.postgres;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leases on a {@link FakeClock}: renewed while held, and an item whose holder stopped
 * renewing (a killed process) comes back once its lease ran out, and not before.
 */
@RequiresPostgres
class PostgresLeaseTests {

	private static final Duration SOON = Duration.ofSeconds(5);

	private static final Duration LEASE = Duration.ofSeconds(3);

	private final EngineFixture fixture = new EngineFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> handle() {
		return this.fixture.track(this.fixture.builder("leased").clock(this.clock).lease(LEASE).buildDelayingQueue());
	}

	/**
	 * The lease's end, in µs on the fake clock's time line (the statements write the
	 * clock's readings anchored on the database's time, {@link ClockAnchor}).
	 */
	private Long leaseUntilMicros(String item) {
		Long untilMicros = TestSql.leaseUntilMicros(this.fixture.table(), item);
		return (untilMicros != null) ? untilMicros - anchorMicros() : null;
	}

	/** The time a fake clock reading of {@code seconds} stands for, in SQL. */
	private String onClock(int seconds) {
		return "to_timestamp(" + (anchorMicros() + seconds * 1_000_000L) + "::float8 / 1000000)";
	}

	private long anchorMicros() {
		return ClockAnchor.knownOffsetMicros(this.clock);
	}

	@Test
	void anItemWhoseHolderStoppedRenewingComesBackOnceItsLeaseRanOut() throws Exception {
		DelayingQueue<String> survivor = handle();
		// A killed process's lease, as its claim left it: until 3 s on the clock.
		TestSql.update("INSERT INTO " + this.fixture.table() + " (queue, item, state, priority, ready_at, seq, "
				+ "token, holder, lease_until) VALUES ('leased', 'x', 1, 0, " + onClock(0) + ", nextval('"
				+ this.fixture.table() + "_token'), nextval('" + this.fixture.table() + "_token'), 'killed', "
				+ onClock(3) + ")");
		long deadToken = TestSql.token(this.fixture.table(), "x");
		assertThat(survivor.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofSeconds(2));
		assertThat(survivor.poll(Duration.ZERO)).as("still leased").isNull();
		this.clock.step(Duration.ofMillis(1001));
		await().atMost(SOON).until(() -> "x".equals(survivor.poll(Duration.ZERO)));
		assertThat(EngineFixture.handle(survivor).stalled()).isOne();
		assertThat(TestSql.update("DELETE FROM " + this.fixture.table() + " WHERE item = 'x' AND token = ?", deadToken))
			.as("the dead holder's late done finds nothing")
			.isZero();
		survivor.done("x");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aHeldLeaseIsRenewedAndNobodyElseGetsTheItem() throws Exception {
		DelayingQueue<String> holder = handle();
		DelayingQueue<String> other = handle();
		holder.add("x");
		assertThat(holder.poll(Duration.ZERO)).isEqualTo("x");
		for (int i = 0; i < 5; i++) {
			this.clock.step(Duration.ofSeconds(1));
			long nowMicros = this.clock.nanoTime() / 1000;
			await().atMost(SOON).until(() -> leaseUntilMicros("x") > nowMicros + 2_000_000);
		}
		assertThat(other.poll(Duration.ZERO)).isNull();
		assertThat(EngineFixture.handle(other).stalled()).isZero();
		holder.done("x");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aClaimWhoseAnswerWasLostIsHandedBackByItsHolder() throws Exception {
		DelayingQueue<String> queue = handle();
		queue.add("x");
		queue.add("y");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		String holder = holderOf("x");
		// y leased to this handle under a token it never heard of.
		TestSql.update("UPDATE " + this.fixture.table() + " SET state = 1, token = nextval('" + this.fixture.table()
				+ "_token'), holder = ?, lease_until = " + onClock(3) + " WHERE item = 'y'", holder);
		EngineFixture.statements(queue).keeper().reconcileSoon();
		await().atMost(SOON).until(() -> TestSql.token(this.fixture.table(), "y") == null);
		assertThat(TestSql.token(this.fixture.table(), "x")).as("a lease it knows stays").isNotNull();
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("y");
		queue.done("x");
		queue.done("y");
	}

	private String holderOf(String item) {
		return TestSql.queryString("SELECT holder FROM " + this.fixture.table() + " WHERE item = ?", item);
	}

}
