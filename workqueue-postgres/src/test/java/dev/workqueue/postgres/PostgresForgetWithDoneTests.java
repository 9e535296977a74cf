package dev.workqueue.postgres;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A forget of an item a handle holds rides with the item's done (one statement, one
 * commit, instead of a delete of its own): the history stays in the table until the done,
 * and whatever reads or counts it meanwhile sees it forgotten.
 */
@RequiresPostgres
class PostgresForgetWithDoneTests {

	private final PostgresFixture fixture = new PostgresFixture();

	private final PostgresWorkQueues.Builder<String> builder = this.fixture.builder("forgets")
		.listen(false)
		.vacuum(VacuumPolicy.NEVER);

	private final FailureCounts<String> attempts = this.builder.rateLimiters().attempts();

	private final RateLimitingQueue<String> queue = this.builder
		.buildRateLimitingQueue(this.builder.rateLimiters().exponential(Duration.ofMillis(1), Duration.ofSeconds(1)));

	@AfterEach
	void close() {
		this.queue.shutDown();
		this.fixture.close();
	}

	@Test
	void aForgetOfAHeldItemIsWrittenByItsDone() throws InterruptedException {
		failTwice("a");
		this.queue.add("a");
		assertThat(this.queue.get()).isEqualTo("a");

		this.queue.forget("a");
		this.attempts.forget("a");
		assertThat(historyRows("a")).as("deferred to the done").isEqualTo(2);

		this.queue.done("a");
		assertThat(historyRows("a")).isZero();
		assertThat(this.attempts.failures("a")).isZero();
	}

	@Test
	void aCountAfterADeferredForgetStartsAfresh() throws InterruptedException {
		failTwice("a");
		this.queue.add("a");
		assertThat(this.queue.get()).isEqualTo("a");
		this.attempts.forget("a");

		assertThat(this.attempts.countFailure("a")).as("failures before this one").isZero();
		assertThat(this.attempts.failures("a")).isEqualTo(1);
		this.queue.done("a");
		assertThat(this.attempts.failures("a")).as("the done forgets nothing counted since").isEqualTo(1);
	}

	@Test
	void aReadAfterADeferredForgetSeesNoHistory() throws InterruptedException {
		failTwice("a");
		this.queue.add("a");
		assertThat(this.queue.get()).isEqualTo("a");
		this.queue.forget("a");

		assertThat(this.queue.numRequeues("a")).isZero();
		assertThat(historyRows("a")).as("the attempts' row; the limiter's was forgotten by the read").isEqualTo(1);
		this.queue.done("a");
		assertThat(this.attempts.failures("a")).as("never forgotten").isEqualTo(2);
	}

	@Test
	void aForgetOfAnItemNobodyHoldsRunsAtOnce() {
		failTwice("a");
		this.attempts.forget("a");
		this.queue.forget("a");
		assertThat(historyRows("a")).isZero();
	}

	@Test
	void aHoldHandedBackWithoutADoneStillForgets() throws InterruptedException {
		failTwice("a");
		this.queue.add("a");
		assertThat(this.queue.get()).isEqualTo("a");
		this.attempts.forget("a");

		assertThat(this.queue.capability(SharedWorkQueue.class).orElseThrow().handBack()).isEqualTo(1);
		assertThat(this.attempts.failures("a")).isZero();
		assertThat(historyRows("a")).as("the exponential limiter's row was not forgotten").isEqualTo(1);
	}

	private void failTwice(String item) {
		this.queue.addRateLimited(item);
		this.queue.addRateLimited(item);
		this.attempts.countFailure(item);
		this.attempts.countFailure(item);
		assertThat(historyRows(item)).isEqualTo(2);
		TestSql.queryLong("DELETE FROM " + this.fixture.table() + " WHERE item = ? RETURNING 1", item);
	}

	private long historyRows(String item) {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_limit WHERE item = ?", item);
	}

}
