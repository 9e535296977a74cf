package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.Pollers;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The handle beyond the contract's rules: its capabilities, metrics, waits for delayed
 * items, shared figures, hand-backs, options and errors.
 */
@RequiresPostgres
class PostgresWorkQueueTests {

	private static final Duration SOON = Duration.ofSeconds(5);

	private final EngineFixture fixture = new EngineFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> handle() {
		return this.fixture.track(this.fixture.builder("q").clock(this.clock).buildDelayingQueue());
	}

	@Test
	void everyKindOfQueueHasThePollerAndSharedCapabilities() {
		RateLimitingQueue<String> limited = this.fixture.track(this.fixture.builder("q")
			.buildRateLimitingQueue(
					new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1), Duration.ofSeconds(1))));
		PriorityQueue<String> prioritized = this.fixture.track(this.fixture.builder("p")
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1), Duration.ofSeconds(1))));
		for (var queue : List.of(limited, prioritized, this.fixture.track(this.fixture.builder("w").buildQueue()))) {
			assertThat(queue.capability(PollerFactory.class)).isPresent();
			assertThat(queue.capability(SharedWorkQueue.class)).isPresent();
		}
	}

	@Test
	void addAllLinesItemsUpInTheOrderGivenAndHoldsAnItemGivenTwiceOnce() throws Exception {
		DelayingQueue<String> queue = handle();
		queue.addAll(List.of("c", "a", "b", "a", "d"));
		assertThat(queue.size()).isEqualTo(4);
		List<String> out = new java.util.ArrayList<>();
		String next;
		while ((next = queue.poll(Duration.ZERO)) != null) {
			out.add(next);
			queue.done(next);
		}
		assertThat(out).containsExactly("c", "a", "b", "d");
	}

	@Test
	void doneAndPollEndsTheItemAndTakesTheNextInOneCall() throws Exception {
		DelayingQueue<String> queue = handle();
		Poller<String> poller = Pollers.of(queue);
		queue.add("a");
		queue.add("b");
		Prioritized<String> first = poller.poll(Duration.ZERO);
		assertThat(first.item()).isEqualTo("a");
		queue.add("a");
		Prioritized<String> second = poller.doneAndPoll("a", Duration.ZERO);
		assertThat(second.item()).isEqualTo("b");
		Prioritized<String> third = poller.doneAndPoll("b", Duration.ZERO);
		assertThat(third.item()).as("the dirty a was queued again by the done").isEqualTo("a");
		assertThat(poller.doneAndPoll("a", Duration.ZERO)).isNull();
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aPollersWakeupEndsItsWaitOnly() throws Exception {
		DelayingQueue<String> queue = handle();
		Poller<String> poller = Pollers.of(queue);
		CompletableFuture<Prioritized<String>> polled = CompletableFuture.supplyAsync(() -> {
			try {
				return poller.poll(Duration.ofHours(1));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(SOON).until(() -> EngineFixture.statements(queue).waitingConsumers() == 1);
		poller.wakeup();
		assertThat(polled.get(5, TimeUnit.SECONDS)).isNull();
	}

	@Test
	void aConsumerWaitingInGetWakesWhenADelayedItemFallsDue() throws Exception {
		DelayingQueue<String> queue = handle();
		CompletableFuture<String> got = CompletableFuture.supplyAsync(() -> {
			try {
				return queue.get();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(SOON).until(() -> EngineFixture.statements(queue).waitingConsumers() == 1);
		queue.addAfter("x", Duration.ofMillis(500));
		this.clock.step(Duration.ofMillis(499));
		assertThat(got).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		assertThat(got.get(5, TimeUnit.SECONDS)).isEqualTo("x");
		queue.done("x");
	}

	@Test
	void aConsumerWaitingInGetFindsAnotherInstancesItemsAtTheNextPoll() throws Exception {
		DelayingQueue<String> queue = handle();
		DelayingQueue<String> other = handle();
		CompletableFuture<String> got = CompletableFuture.supplyAsync(() -> {
			try {
				return queue.get();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(SOON).until(() -> EngineFixture.statements(queue).waitingConsumers() == 1);
		other.addAfter("x", Duration.ofMillis(1500));
		other.add("y");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(got.get(5, TimeUnit.SECONDS)).as("poll-only: found at the poll interval").isEqualTo("y");
		queue.done("y");
		CompletableFuture<String> later = CompletableFuture.supplyAsync(() -> {
			try {
				return queue.get();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(SOON).until(() -> EngineFixture.statements(queue).waitingConsumers() == 1);
		this.clock.step(Duration.ofMillis(499));
		assertThat(later).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		assertThat(later.get(5, TimeUnit.SECONDS)).as("the claim told when x falls due").isEqualTo("x");
		queue.done("x");
	}

	@Test
	void metricsCountEffectiveAddsRetriesHandOutsAndDones() throws Exception {
		List<String> events = new CopyOnWriteArrayList<>();
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").clock(this.clock).metrics(new WorkQueueMetrics() {
				@Override
				public void added() {
					events.add("added");
				}

				@Override
				public void handedOut(long queuedNanos) {
					events.add("handedOut " + Duration.ofNanos(queuedNanos));
				}

				@Override
				public void done(long workNanos) {
					events.add("done " + Duration.ofNanos(workNanos));
				}

				@Override
				public void retried() {
					events.add("retried");
				}
			}).buildDelayingQueue());
		queue.add("a");
		queue.add("a");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.add("a");
		queue.add("a");
		this.clock.step(Duration.ofSeconds(2));
		queue.done("a");
		queue.addAfter("b", Duration.ofSeconds(1));
		assertThat(events).containsExactly("added", "handedOut PT1S", "added", "done PT2S", "retried");
	}

	@Test
	void statsAreTheSharedFiguresAndSizeTheSharedReadyCount() throws Exception {
		DelayingQueue<String> queue = handle();
		DelayingQueue<String> other = handle();
		other.add("a");
		other.add("b");
		other.add("c");
		other.addAfter("later", Duration.ofSeconds(1));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		other.add("a");
		this.clock.step(Duration.ofMillis(300));
		WorkQueueStats stats = queue.stats();
		assertThat(stats.depth()).isEqualTo(2);
		assertThat(stats.processing()).isOne();
		assertThat(stats.waiting()).isOne();
		assertThat(stats.addedWhileProcessing()).isOne();
		assertThat(stats.headQueuedNanos()).isEqualTo(Duration.ofMillis(300).toNanos());
		assertThat(stats.unfinishedWorkNanos()).isEqualTo(Duration.ofMillis(300).toNanos());
		assertThat(other.size()).isEqualTo(2);
		assertThat(other.stats().unfinishedWorkNanos()).as("the items it holds itself").isZero();
		queue.done("a");
	}

	@Test
	void handBackReturnsWhatTheHandleHoldsForOthersToTake() throws Exception {
		DelayingQueue<String> queue = handle();
		DelayingQueue<String> other = handle();
		queue.add("a");
		queue.add("b");
		queue.add("c");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("b");
		SharedWorkQueue shared = queue.capability(SharedWorkQueue.class).orElseThrow();
		assertThat(shared.handBack("b", Duration.ofSeconds(1))).isTrue();
		assertThat(shared.handBack("b", Duration.ZERO)).as("no longer held").isFalse();
		queue.shutDown();
		assertThat(shared.handBack()).isOne();
		assertThat(other.poll(Duration.ZERO)).as("in its place in line").isEqualTo("a");
		assertThat(other.poll(Duration.ZERO)).isEqualTo("c");
		assertThat(other.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofSeconds(1));
		assertThat(other.poll(Duration.ZERO)).isEqualTo("b");
		queue.done("a");
		assertThat(other.stats().processing()).as("a late done after a hand-back changes nothing").isEqualTo(3);
		for (String item : List.of("a", "b", "c")) {
			other.done(item);
		}
	}

	@Test
	void doneAfterShutDownIsLegalAndTheKeeperEndsOnceNothingIsHeld() throws Exception {
		DelayingQueue<String> queue = handle();
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.shutDown();
		LeaseKeeper keeper = EngineFixture.statements(queue).keeper();
		assertThat(keeper.stopped()).as("it still renews a's lease").isFalse();
		queue.done("a");
		await().atMost(SOON).until(keeper::stopped);
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void withoutSynchronousCommitTheQueueWorksAndThePoolsConnectionsKeepTheirSetting() throws Exception {
		try (HikariDataSource one = PostgresDatabase.newPool(1)) {
			DelayingQueue<String> queue = this.fixture
				.track(PostgresWorkQueues.builder(one, dev.workqueue.ItemCodec.strings())
					.table(this.fixture.table())
					.name("async")
					.synchronousCommit(false)
					.listen(false)
					.vacuum(VacuumPolicy.NEVER)
					.buildDelayingQueue());
			queue.add("a");
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
			queue.done("a");
			try (Connection connection = one.getConnection();
					Statement statement = connection.createStatement();
					ResultSet setting = statement.executeQuery("SHOW synchronous_commit")) {
				setting.next();
				assertThat(setting.getString(1)).isEqualTo("on");
			}
			queue.shutDown();
			await().atMost(SOON).until(() -> EngineFixture.statements(queue).keeper().stopped());
		}
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void aMissingTableIsReportedNamingTheQueueAndTheTable() {
		DelayingQueue<String> queue = this.fixture.track(
				PostgresWorkQueues.builder(this.fixture.tableFixture().dataSource(), dev.workqueue.ItemCodec.strings())
					.table("wq_no_such_table")
					.name("lost")
					.listen(false)
					.vacuum(VacuumPolicy.NEVER)
					.buildDelayingQueue());
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add("a"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.MISSING_TABLE))
			.withMessageContaining("queue 'lost'")
			.withMessageContaining("wq_no_such_table");
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.poll(Duration.ZERO))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.MISSING_TABLE));
		await().atMost(SOON).until(() -> !queue.capability(SharedWorkQueue.class).orElseThrow().reachable());
	}

	@Test
	void aTableWithoutItsGivenUpTableIsReportedAtTheFirstStatementNamingItAndTheSchema() throws Exception {
		// A table made before given-up records, whose schema script was not run again.
		PostgresDatabase.execute("DROP TABLE " + this.fixture.table() + "_given_up");
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("old").buildDelayingQueue());
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add("a"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.MISSING_TABLE))
			.withMessageContaining("queue 'old'")
			.withMessageContaining(this.fixture.table() + "_given_up")
			.withMessageContaining("PostgresWorkQueues.schema(table)");
		assertThat(TestSql.count(this.fixture.table())).as("nothing written").isZero();
		PostgresDatabase.execute(PostgresWorkQueues.schema(this.fixture.table()));
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.done("a");
	}

	@Test
	void aLeaseTableWithoutTheHandOutColumnIsReportedAtTheFirstStatementNamingIt() {
		// A lease table made before hand-out times, whose schema script was not run
		// again.
		PostgresDatabase.execute("ALTER TABLE " + this.fixture.table() + "_lease DROP COLUMN leased_at");
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("old").buildDelayingQueue());
		assertThatExceptionOfType(PostgresQueueException.class).isThrownBy(() -> queue.add("a"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.MISSING_TABLE))
			.withMessageContaining("column leased_at of table " + this.fixture.table() + "_lease")
			.withMessageContaining("PostgresWorkQueues.schema(table)");
	}

	@Test
	void anAddThatFailsWhileTheHandleShutsDownIsIgnoredAsEveryAddAfterIt() throws Exception {
		AtomicBoolean hold = new AtomicBoolean();
		CountDownLatch asked = new CountDownLatch(1);
		CountDownLatch shutDown = new CountDownLatch(1);
		DataSource refusing = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (!method.getName().equals("getConnection")) {
						throw new UnsupportedOperationException(method.getName());
					}
					if (hold.get()) {
						asked.countDown();
						shutDown.await();
					}
					throw new SQLException("connection refused", "08001");
				});
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("racing", refusing).clock(this.clock).buildDelayingQueue());
		assertThatExceptionOfType(PostgresQueueException.class).as("on a running handle")
			.isThrownBy(() -> queue.add("x"));
		hold.set(true);
		CompletableFuture<Void> add = CompletableFuture.runAsync(() -> queue.add("y"));
		assertThat(asked.await(5, TimeUnit.SECONDS)).isTrue();
		queue.shutDown();
		shutDown.countDown();
		// Returns, where the same failure on a running handle threw.
		add.get(5, TimeUnit.SECONDS);
	}

	@Test
	void anAddInTheCallersTransactionThatFailsWhileTheHandleShutsDownIsThrown() throws Exception {
		try (CallerTransaction transaction = new CallerTransaction()) {
			assertAddFailingAtShutDownIsThrown(transaction,
					(adds) -> this.fixture.builder("racing", adds).callerTransaction(() -> true));
		}
	}

	@Test
	void anAddInTheCallersTransactionByTheDefaultRuleThatFailsWhileTheHandleShutsDownIsThrown() throws Exception {
		try (CallerTransaction transaction = new CallerTransaction()) {
			assertAddFailingAtShutDownIsThrown(transaction, (adds) -> this.fixture.builder("racing", adds));
		}
	}

	/**
	 * An add in the caller's transaction whose statement fails once the handle shut down:
	 * the failure aborted the caller's transaction, so it reaches the caller.
	 */
	private void assertAddFailingAtShutDownIsThrown(CallerTransaction transaction,
			Function<DataSource, PostgresWorkQueues.Builder<String>> builder) throws Exception {
		AtomicBoolean hold = new AtomicBoolean();
		CountDownLatch asked = new CountDownLatch(1);
		CountDownLatch shutDown = new CountDownLatch(1);
		Connection connection = transaction.dataSource().getConnection();
		// The caller's connection, which holds a statement until the handle shut down and
		// then fails it, as a connection lost meanwhile.
		Connection failing = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					if (hold.get() && method.getName().equals("prepareStatement")) {
						asked.countDown();
						shutDown.await();
						throw new SQLException("connection lost", "08006");
					}
					try {
						return method.invoke(connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		DataSource adds = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (!method.getName().equals("getConnection")) {
						throw new UnsupportedOperationException(method.getName());
					}
					return failing;
				});
		DelayingQueue<String> queue = this.fixture.track(builder.apply(adds).clock(this.clock).buildDelayingQueue());
		queue.add("x");
		hold.set(true);
		CompletableFuture<Void> add = CompletableFuture.runAsync(() -> queue.add("y"));
		assertThat(asked.await(5, TimeUnit.SECONDS)).isTrue();
		queue.shutDown();
		shutDown.countDown();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> add.get(5, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(PostgresQueueException.class)
			.withMessageContaining("add to queue 'racing'");
	}

}
