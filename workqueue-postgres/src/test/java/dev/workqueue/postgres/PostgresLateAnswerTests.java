package dev.workqueue.postgres;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.postgres.AnswerFaults.Armed;
import dev.workqueue.postgres.AnswerFaults.Fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Answers that are lost or come late: a {@code done} that returned normally is never
 * undone by a claim of the same handle whose answer was lost (its leases are handed back,
 * but never the row of a done under way), also under random terminations of the queue's
 * connections; and a claim whose answer comes after its lease ran out hands nothing out
 * (another handle may hold the item by then).
 */
@RequiresPostgres
class PostgresLateAnswerTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	/** Marks a claim's statement (also one with a done riding along). */
	private static final String CLAIM = "claimed AS (UPDATE";

	/** Marks a done's statement. */
	private static final String DONE = "gone AS (DELETE";

	private final EngineFixture fixture = new EngineFixture();

	private final AnswerFaults faults = new AnswerFaults(this.fixture.tableFixture().dataSource());

	private HikariDataSource ownPool;

	@AfterEach
	void close() {
		try {
			this.fixture.close();
		}
		finally {
			if (this.ownPool != null) {
				this.ownPool.close();
			}
		}
	}

	private DelayingQueue<String> handle(DataSource pool, Duration lease) {
		return this.fixture.track(PostgresWorkQueues.builder(pool, ItemCodec.strings())
			.table(this.fixture.table())
			.name("answers")
			.lease(lease)
			.listen(false)
			.vacuum(VacuumPolicy.NEVER)
			.buildDelayingQueue());
	}

	@Test
	void aDoneThatReturnedIsNotUndoneByAClaimWhoseAnswerWasLost() throws Exception {
		DelayingQueue<String> queue = handle(this.faults.dataSource(), Duration.ofSeconds(30));
		queue.addAll(List.of("x", "y"));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		Armed doneHeld = this.faults.arm(DONE, Fault.HOLD_BEFORE);
		CompletableFuture<Void> done = CompletableFuture.runAsync(() -> queue.done("x"));
		doneHeld.awaitReached();
		// The claim leases y and commits; its answer never comes: the handle hands back
		// what it leased and does not know of.
		this.faults.arm(CLAIM, Fault.LOSE_ANSWER);
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.poll(Duration.ZERO));
		await().atMost(SOON).until(() -> TestSql.token(this.fixture.table(), "y") == null);
		doneHeld.release();
		done.get(5, TimeUnit.SECONDS);
		assertThat(queue.poll(Duration.ZERO)).as("the lost claim's item, handed back").isEqualTo("y");
		assertThat(queue.poll(Duration.ZERO)).as("x, whose done returned").isNull();
		queue.done("y");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aClaimAnsweredAfterItsLeaseRanOutHandsNothingOut() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		DelayingQueue<String> late = handle(this.faults.dataSource(), lease);
		DelayingQueue<String> other = handle(this.fixture.tableFixture().dataSource(), lease);
		late.add("x");
		Armed answer = this.faults.arm(CLAIM, Fault.HOLD_ANSWER);
		CompletableFuture<String> taken = CompletableFuture.supplyAsync(() -> {
			try {
				return late.poll(Duration.ZERO);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		answer.awaitReached();
		// The lease runs out while the answer is held up: the item goes to the other.
		await().atMost(SOON).until(() -> "x".equals(other.poll(Duration.ZERO)));
		answer.release();
		assertThat(taken.get(5, TimeUnit.SECONDS)).as("an item another handle holds now").isNull();
		other.done("x");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	/**
	 * Workers of two handles take and finish items while a thread terminates the queue's
	 * connections at random (only those of this test's pool, by their application name):
	 * claims, dones and renewals fail, and no item is handed out again after its
	 * {@code done} returned. The lease outlasts the test: no lease runs out.
	 */
	@Test
	void noDoneThatReturnedIsUndoneWhileConnectionsAreTerminated() throws Exception {
		String application = "wq-answers-" + ProcessHandle.current().pid();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		// Fewer connections than workers: a done waits for one, and a failed claim's
		// hand-back can come meanwhile.
		config.setMaximumPoolSize(3);
		config.addDataSourceProperty("ApplicationName", application);
		this.ownPool = new HikariDataSource(config);
		List<DelayingQueue<String>> queues = List.of(handle(this.ownPool, Duration.ofSeconds(60)),
				handle(this.ownPool, Duration.ofSeconds(60)));
		List<String> items = IntStream.range(0, 3000).mapToObj((i) -> "item-" + i).toList();
		this.fixture.track(handle(this.fixture.tableFixture().dataSource(), Duration.ofSeconds(60))).addAll(items);
		Set<String> doneReturned = ConcurrentHashMap.newKeySet();
		List<String> undone = new CopyOnWriteArrayList<>();
		AtomicInteger failures = new AtomicInteger();
		AtomicBoolean running = new AtomicBoolean(true);
		List<Thread> threads = new CopyOnWriteArrayList<>();
		for (int w = 0; w < 6; w++) {
			DelayingQueue<String> queue = queues.get(w % 2);
			threads.add(start("worker-" + w, () -> {
				while (running.get()) {
					try {
						String item = queue.poll(Duration.ofMillis(100));
						if (item == null) {
							continue;
						}
						if (doneReturned.contains(item)) {
							undone.add(item);
						}
						queue.done(item);
						doneReturned.add(item);
					}
					catch (PostgresQueueException ex) {
						failures.incrementAndGet();
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}));
		}
		AtomicInteger terminated = new AtomicInteger();
		threads.add(start("terminator", () -> {
			while (running.get()) {
				Long killed = TestSql.queryLong(
						"SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM "
								+ "pg_stat_activity WHERE application_name = ? ORDER BY random() LIMIT 1) p",
						application);
				terminated.addAndGet((killed != null) ? killed.intValue() : 0);
				// The next termination once the workers finished a few more items (or a
				// second passed without progress): faults keep pace with the work.
				int next = doneReturned.size() + ThreadLocalRandom.current().nextInt(1, 8);
				long deadlineNanos = System.nanoTime() + Duration.ofSeconds(1).toNanos();
				await().atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(2))
					.until(() -> !running.get() || doneReturned.size() >= next || System.nanoTime() > deadlineNanos);
			}
		}));
		try {
			// 15 s of faults, or until every item is done (those whose done failed stay
			// leased to the end).
			long endNanos = System.nanoTime() + Duration.ofSeconds(15).toNanos();
			await().atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> System.nanoTime() > endNanos || doneReturned.size() == items.size() || !undone.isEmpty());
		}
		finally {
			running.set(false);
			for (Thread thread : threads) {
				thread.join(SOON.toMillis());
			}
		}
		assertThat(terminated.get()).as("connections terminated").isPositive();
		assertThat(undone)
			.as("handed out again after their done returned (of %d done, %d failures, %d terminations)",
					doneReturned.size(), failures.get(), terminated.get())
			.isEmpty();
	}

	private static Thread start(String name, Runnable work) {
		Thread thread = new Thread(work, name);
		thread.start();
		return thread;
	}

}
