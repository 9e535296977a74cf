package dev.workqueue.postgres;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing: a {@code done} names its lease's token, so the late done of a holder whose
 * lease was lost changes nothing, however the lease was lost, and tokens come from a
 * sequence that never repeats one, also after the table was emptied.
 */
@RequiresPostgres
class PostgresFencingTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> handle() {
		return this.fixture.track(this.fixture.builder("fenced").buildDelayingQueue());
	}

	private String table() {
		return this.fixture.table();
	}

	@Test
	void aStaleHoldersDoneChangesNothing() throws Exception {
		DelayingQueue<String> stale = handle();
		DelayingQueue<String> fresh = handle();
		stale.add("x");
		assertThat(stale.poll(Duration.ZERO)).isEqualTo("x");
		TestSql.expireLeaseByHand(table(), "x");
		assertThat(fresh.poll(Duration.ZERO)).isEqualTo("x");
		Long freshToken = TestSql.token(table(), "x");
		stale.done("x");
		assertThat(TestSql.token(table(), "x")).as("the fresh holder's lease stands").isEqualTo(freshToken);
		assertThat(stale.poll(Duration.ZERO)).isNull();
		assertThat(fresh.poll(Duration.ZERO)).isNull();
		fresh.done("x");
		assertThat(TestSql.count(table())).isZero();
	}

	@Test
	void aStaleDoneNeverTakesTheDirtyMarkOfTheFreshLease() throws Exception {
		DelayingQueue<String> stale = handle();
		DelayingQueue<String> fresh = handle();
		stale.add("x");
		assertThat(stale.poll(Duration.ZERO)).isEqualTo("x");
		TestSql.expireLeaseByHand(table(), "x");
		assertThat(fresh.poll(Duration.ZERO)).isEqualTo("x");
		fresh.add("x");
		stale.done("x");
		assertThat(fresh.poll(Duration.ZERO)).as("still dirty, not queued").isNull();
		fresh.done("x");
		assertThat(fresh.poll(Duration.ZERO)).as("the fresh done queues it again").isEqualTo("x");
		fresh.done("x");
	}

	@Test
	void tokensNeverRepeatAfterTheTableIsTruncated() throws Exception {
		DelayingQueue<String> stale = handle();
		DelayingQueue<String> fresh = handle();
		stale.add("x");
		assertThat(stale.poll(Duration.ZERO)).isEqualTo("x");
		long staleToken = TestSql.token(table(), "x");
		TestSql.update("TRUNCATE " + table() + " RESTART IDENTITY");
		fresh.add("x");
		assertThat(fresh.poll(Duration.ZERO)).isEqualTo("x");
		long freshToken = TestSql.token(table(), "x");
		assertThat(freshToken).isGreaterThan(staleToken);
		stale.done("x");
		assertThat(TestSql.token(table(), "x")).isEqualTo(freshToken);
		fresh.done("x");
		assertThat(TestSql.count(table())).isZero();
	}

	@Test
	void tokensNeverRepeatAfterTheRowsAreDeleted() throws Exception {
		DelayingQueue<String> stale = handle();
		DelayingQueue<String> fresh = handle();
		stale.add("x");
		assertThat(stale.poll(Duration.ZERO)).isEqualTo("x");
		long staleToken = TestSql.token(table(), "x");
		TestSql.update("DELETE FROM " + table());
		fresh.add("x");
		assertThat(fresh.poll(Duration.ZERO)).isEqualTo("x");
		assertThat(TestSql.token(table(), "x")).isGreaterThan(staleToken);
		stale.done("x");
		assertThat(TestSql.token(table(), "x")).as("the stale done found nothing of its own").isNotNull();
		fresh.done("x");
		assertThat(TestSql.count(table())).isZero();
	}

	@Test
	void aHandleNeverHandsOutAnItemItsOwnWorkerStillHoldsAndItRunsAgainAfter() throws Exception {
		DelayingQueue<String> handle = handle();
		DelayingQueue<String> other = handle();
		handle.add("x");
		assertThat(handle.poll(Duration.ZERO)).isEqualTo("x");
		TestSql.expireLeaseByHand(table(), "x");
		assertThat(handle.poll(Duration.ZERO)).as("its own worker still holds x: parked").isNull();
		assertThat(other.poll(Duration.ZERO)).as("the parked lease is live").isNull();
		handle.done("x");
		assertThat(other.poll(Duration.ZERO)).as("handed back when the first worker is done").isEqualTo("x");
		assertThat(handle.poll(Duration.ZERO)).isNull();
		other.done("x");
		assertThat(TestSql.count(table())).isZero();
	}

}
