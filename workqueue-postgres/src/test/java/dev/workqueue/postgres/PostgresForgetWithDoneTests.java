package dev.workqueue.postgres;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
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

	@Test
	void aDoneDoesNotWaitForACallersTransactionThatCountsTheItemsFailures() throws Exception {
		failTwice("a");
		this.queue.add("a");
		assertThat(this.queue.get()).isEqualTo("a");
		this.attempts.forget("a");
		ExecutorService worker = Executors.newSingleThreadExecutor();
		try (CallerTransaction transaction = new CallerTransaction()) {
			// Another instance, in its application's transaction: the count holds a's
			// history row until the commit.
			PostgresWorkQueues.Builder<String> other = PostgresWorkQueues
				.builder(transaction.dataSource(), ItemCodec.strings())
				.table(this.fixture.table())
				.name("forgets")
				.workerDataSource(this.fixture.dataSource())
				.listen(false)
				.vacuum(VacuumPolicy.NEVER);
			assertThat(other.rateLimiters().attempts().countFailure("a")).isEqualTo(2);
			Future<?> done = worker.submit(() -> this.queue.done("a"));
			// A done that held a's row while it waited for the history's would deadlock
			// with the add below (PostgreSQL then fails one of them after a second).
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> itemRows("a") == 0);
			DelayingQueue<String> application = other.buildDelayingQueue();
			try {
				application.add("a");
				assertThat(done).as("its forget waits for the count's commit").isNotDone();
				transaction.commit();
				done.get(5, TimeUnit.SECONDS);
			}
			finally {
				application.shutDown();
			}
		}
		finally {
			worker.shutdownNow();
		}
		assertThat(this.attempts.failures("a")).as("forgotten after the count").isZero();
		assertThat(itemRows("a")).as("added anew").isEqualTo(1);
	}

	private void failTwice(String item) {
		this.queue.addRateLimited(item);
		this.queue.addRateLimited(item);
		this.attempts.countFailure(item);
		this.attempts.countFailure(item);
		assertThat(historyRows(item)).isEqualTo(2);
		TestSql.queryLong("DELETE FROM " + this.fixture.table() + " WHERE item = ? RETURNING 1", item);
	}

	private long itemRows(String item) {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " WHERE item = ?", item);
	}

	private long historyRows(String item) {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_limit WHERE item = ?", item);
	}

}
