package dev.workqueue.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code done} is one statement that cannot lose an add of the same item that commits
 * while it runs: under READ COMMITTED its {@code DELETE} waits for the add's row lock and
 * re-reads the row, so it sees the dirty mark the add wrote and queues the item again. (A
 * done split into two statements, or into an update and a delete on one snapshot, loses
 * it: these tests fail on such a done.)
 */
@RequiresPostgres
class PostgresDoneRaceTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	@Test
	void anAddThatCommitsWhileDoneWaitsForItsRowIsNeverLost() throws Exception {
		DelayingQueue<String> worker = this.fixture.track(this.fixture.builder("race").buildDelayingQueue());
		worker.add("x");
		assertThat(worker.poll(Duration.ZERO)).isEqualTo("x");
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> adder = this.fixture
				.track(this.fixture.builder("race", transaction.dataSource()).buildDelayingQueue());
			// The add's upsert marks x dirty and holds its row lock until the commit.
			adder.add("x");
			CompletableFuture<Void> done = CompletableFuture.runAsync(() -> worker.done("x"));
			await().atMost(Duration.ofSeconds(5)).until(this::aStatementWaitsForALock);
			assertThat(done).isNotDone();
			transaction.commit();
			done.get(5, TimeUnit.SECONDS);
		}
		assertThat(worker.poll(Duration.ZERO)).as("queued again by the done").isEqualTo("x");
		worker.done("x");
		assertThat(worker.poll(Duration.ZERO)).isNull();
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	private boolean aStatementWaitsForALock() {
		return TestSql.queryLong(
				"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?",
				"%DELETE FROM " + this.fixture.table() + " %") > 0;
	}

	@Test
	void concurrentAddsAndDonesOfOneItemNeverLoseIt() throws Exception {
		int threads = 4;
		int rounds = 150;
		List<Thread> workers = new ArrayList<>();
		List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
		for (int t = 0; t < threads; t++) {
			String name = "race-" + t;
			DelayingQueue<String> taker = this.fixture.track(this.fixture.builder(name).buildDelayingQueue());
			DelayingQueue<String> adder = this.fixture.track(this.fixture.builder(name).buildDelayingQueue());
			CyclicBarrier start = new CyclicBarrier(2);
			Thread racer = new Thread(() -> {
				try {
					for (int round = 0; round < rounds; round++) {
						start.await(10, TimeUnit.SECONDS);
						adder.add("x");
						start.await(10, TimeUnit.SECONDS);
					}
				}
				catch (Exception ex) {
					failures.add(ex);
				}
			});
			Thread worker = new Thread(() -> {
				try {
					for (int round = 0; round < rounds; round++) {
						taker.add("x");
						assertThat(taker.poll(Duration.ZERO)).isEqualTo("x");
						start.await(10, TimeUnit.SECONDS);
						taker.done("x");
						start.await(10, TimeUnit.SECONDS);
						// The add came before the done (dirty: queued again) or after it
						// (queued anew): either way x is ready now, once.
						assertThat(taker.poll(Duration.ZERO)).as("round %d", round).isEqualTo("x");
						taker.done("x");
						assertThat(taker.poll(Duration.ZERO)).isNull();
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			});
			racer.start();
			worker.start();
			workers.add(racer);
			workers.add(worker);
		}
		for (Thread worker : workers) {
			worker.join(Duration.ofSeconds(120).toMillis());
			assertThat(worker.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

}
