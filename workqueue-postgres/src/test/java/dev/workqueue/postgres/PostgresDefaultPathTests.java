package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The default path, listening and vacuuming, with handles built as an application builds
 * them: each "instance" a handle on a pool of its own (so each has its own {@code LISTEN}
 * connection, as another JVM would), consumers that only a notice can wake (a poll
 * interval of an hour), the database's clock.
 */
@RequiresPostgres
class PostgresDefaultPathTests {

	/** The poll interval of the waiting instances: only a notice wakes them. */
	private static final Duration QUIET = Duration.ofHours(1);

	private static final Duration SOON = Duration.ofSeconds(20);

	private final EngineFixture fixture = new EngineFixture();

	/** The {@code application_name} of this test's pools, to count their connections. */
	private final String label = "wq-default-" + ProcessHandle.current().pid();

	private final List<HikariDataSource> pools = new ArrayList<>();

	/** The barriers {@link #noticesUntilBarrier} has sent. */
	private int barriersHeard;

	private final ExecutorService threads = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "test-consumer");
		thread.setDaemon(true);
		return thread;
	});

	@AfterEach
	void close() {
		try {
			this.fixture.close();
		}
		finally {
			this.threads.shutdownNow();
			this.pools.forEach(HikariDataSource::close);
		}
	}

	private HikariDataSource pool(int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(size);
		config.addDataSourceProperty("ApplicationName", this.label);
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		return pool;
	}

	/** A builder with every default but the poll interval, on {@code dataSource}. */
	private PostgresWorkQueues.Builder<String> instance(DataSource dataSource) {
		return PostgresWorkQueues.builder(dataSource, ItemCodec.strings())
			.table(this.fixture.table())
			.name("listened")
			.pollInterval(QUIET);
	}

	private DelayingQueue<String> track(DelayingQueue<String> queue) {
		return this.fixture.track(queue);
	}

	private Future<String> take(DelayingQueue<String> queue) {
		return this.threads.submit(queue::get);
	}

	private String channel() {
		return Notices.channel(this.fixture.table());
	}

	/**
	 * Waits until the {@code LISTEN} connection of {@code key} listens to the table's
	 * channel, and one consumer of {@code queue} waits for a notice and has for a while:
	 * the look that the {@code LISTEN} owes its subscribers (notices sent before it may
	 * have been missed) follows it at once, and is over then.
	 */
	private void awaitListeningAndWaiting(Object key, DelayingQueue<String> queue) {
		await().atMost(SOON).until(() -> {
			Notices notices = Notices.shared(key);
			return notices != null && notices.listening().contains(channel());
		});
		await().during(Duration.ofMillis(300))
			.atMost(SOON)
			.until(() -> EngineFixture.statements(queue).waitingConsumers() == 1);
	}

	/** How many notices the consumers of a handle were given so far. */
	private static long notices(DelayingQueue<String> queue) {
		return EngineFixture.statements(queue).notices();
	}

	/**
	 * Has each handle look once at the empty queue (a handle listens once a consumer of
	 * its looks), then waits until the LISTEN connection of {@code key} listens to the
	 * table's channel and the handles have taken the look it owes them: their notices
	 * stay as they are for a while.
	 */
	private void awaitQuiet(Object key, List<DelayingQueue<String>> queues) throws InterruptedException {
		for (DelayingQueue<String> queue : queues) {
			assertThat(queue.poll(Duration.ZERO)).isNull();
		}
		await().atMost(SOON).until(() -> {
			Notices notices = Notices.shared(key);
			return notices != null && notices.listening().contains(channel());
		});
		long[] last = { -1 };
		await().during(Duration.ofMillis(300)).atMost(SOON).until(() -> {
			long sum = queues.stream().mapToLong(PostgresDefaultPathTests::notices).sum();
			boolean same = sum == last[0];
			last[0] = sum;
			return same;
		});
	}

	/**
	 * Returns once every notice committed before the call has been handed to every handle
	 * that shares the LISTEN connection of {@code barrier}: twice, a notice to
	 * {@code barrier}'s queue alone, awaited until heard. The listener thread hands out
	 * one batch of notices after another, so a second notice sent after the first was
	 * heard is heard only once the batch of the first is handed out to everyone.
	 */
	private void passBarrier(DelayingQueue<String> barrier) {
		for (int round = 0; round < 2; round++) {
			long before = notices(barrier);
			notifyUnstamped("barrier");
			await().atMost(SOON).until(() -> notices(barrier) > before);
		}
	}

	/** Sends the notice of an add in a caller's transaction, as {@code add.sql} does. */
	private void notifyUnstamped(String queue) {
		TestSql.queryString("SELECT pg_notify(?, ?)::text", channel(), "0:" + queue);
	}

	/**
	 * Sends a notice to queue {@code barrier}, and returns how many notices for queue
	 * {@code listened} {@code listening} heard before it since the last barrier.
	 */
	private long noticesUntilBarrier(Listening listening) throws SQLException {
		notifyUnstamped("barrier");
		await().atMost(SOON)
			.until(() -> listening.received()
				.stream()
				.filter((notice) -> "barrier".equals(notice.queue()))
				.count() > this.barriersHeard);
		List<Notices.Notice> received = listening.received();
		long listened = 0;
		int barriers = 0;
		for (Notices.Notice notice : received) {
			if ("barrier".equals(notice.queue()) && ++barriers > this.barriersHeard) {
				break;
			}
			if (barriers == this.barriersHeard && "listened".equals(notice.queue())) {
				listened++;
			}
		}
		this.barriersHeard++;
		return listened;
	}

	/** The live thread named {@code name}, or {@code null}. */
	private static Thread thread(String name) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(name))
			.findFirst()
			.orElse(null);
	}

	/** Adds a ready row behind the queues' back: no notice tells anyone. */
	private void addUnannounced(String item) {
		TestSql.update("INSERT INTO " + this.fixture.table() + " (queue, item, state, priority, ready_at, seq)"
				+ " VALUES ('listened', ?, 0, 0, statement_timestamp(), nextval('" + this.fixture.table() + "_token'))",
				item);
	}

	/** Checks that a consumer stays waiting: nothing but a notice wakes it. */
	private static void assertStillWaiting(Future<String> taken) {
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !taken.isDone());
	}

	@Test
	void aConsumerWaitingOnOneInstanceGetsAnItemAddedThroughAnother() throws Exception {
		DelayingQueue<String> a = track(instance(pool(2)).buildDelayingQueue());
		HikariDataSource poolB = pool(2);
		DelayingQueue<String> b = track(instance(poolB).buildDelayingQueue());
		Future<String> taken = take(b);
		awaitListeningAndWaiting(poolB, b);
		// A row written behind the queues' back sends no notice: it stays unseen, so
		// what wakes the consumer below is the notice of a's add.
		addUnannounced("unannounced");
		assertStillWaiting(taken);
		a.add("announced");
		assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("first in line").isEqualTo("unannounced");
		b.done("unannounced");
		assertThat(b.poll(Duration.ZERO)).isEqualTo("announced");
		b.done("announced");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void anAddInACallersTransactionIsHeardByAnotherInstanceOnlyAfterTheCommit() throws Exception {
		HikariDataSource poolB = pool(2);
		DelayingQueue<String> b = track(instance(poolB).buildDelayingQueue());
		Future<String> taken = take(b);
		awaitListeningAndWaiting(poolB, b);
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> a = track(
					instance(transaction.dataSource()).workerDataSource(pool(2)).buildDelayingQueue());
			a.add("x");
			assertStillWaiting(taken);
			transaction.commit();
			assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("x");
		}
		b.done("x");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void anInstanceIsNotWokenByItsOwnNoticeOfAnAddCommittedOnItsOwnButAnotherHandleIs() throws Exception {
		HikariDataSource pool = pool(2);
		// Three handles on one pool share its LISTEN connection: a notice reaches them in
		// one batch of the listener thread.
		DelayingQueue<String> a = track(instance(pool).buildDelayingQueue());
		DelayingQueue<String> b = track(instance(pool).buildDelayingQueue());
		DelayingQueue<String> barrier = track(instance(pool).name("barrier").buildDelayingQueue());
		try (Listening listening = new Listening(channel())) {
			awaitQuiet(pool, List.of(a, b, barrier));
			long aBefore = notices(a);
			long bBefore = notices(b);
			a.add("x");
			await().atMost(SOON)
				.until(() -> listening.received().stream().anyMatch((notice) -> "listened".equals(notice.queue())));
			passBarrier(barrier);
			assertThat(notices(a) - aBefore).as("its own add's local signal, not its notice too").isOne();
			assertThat(notices(b) - bBefore).as("another handle in this JVM hears it").isOne();
		}
		assertThat(a.poll(Duration.ZERO)).isEqualTo("x");
		a.done("x");
	}

	@ParameterizedTest(name = "callerTransaction rule: {0}")
	@ValueSource(booleans = { false, true })
	void anInstancesOwnConsumerTakesAnItemAddedInACallersTransactionWithinMillisecondsOfTheCommit(boolean rule)
			throws Exception {
		HikariDataSource workers = pool(2);
		try (CallerTransaction transaction = new CallerTransaction()) {
			PostgresWorkQueues.Builder<String> builder = instance(transaction.dataSource()).workerDataSource(workers);
			DelayingQueue<String> a = track(
					rule ? builder.callerTransaction(() -> true).buildDelayingQueue() : builder.buildDelayingQueue());
			Future<String> taken = take(a);
			awaitListeningAndWaiting(workers, a);
			a.add("x");
			a.addAfter("later", Duration.ofHours(1));
			transaction.commit();
			// Only the notice the add sent in the transaction can wake the consumer (it
			// polls hourly), and it does so at once.
			await().pollDelay(Duration.ZERO)
				.pollInterval(Duration.ofMillis(1))
				.atMost(Duration.ofMillis(100))
				.until(taken::isDone);
			assertThat(taken.get()).isEqualTo("x");
			a.done("x");
		}
	}

	@Test
	void anInstancesOwnConsumerTakesItemsAddedTogetherInACallersTransactionWithinMillisecondsOfTheCommit()
			throws Exception {
		HikariDataSource workers = pool(2);
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> a = track(
					instance(transaction.dataSource()).workerDataSource(workers).buildDelayingQueue());
			Future<String> taken = take(a);
			awaitListeningAndWaiting(workers, a);
			a.addAll(List.of("x", "y"));
			transaction.commit();
			// Only the batch's notice can wake the consumer (it polls hourly): one its
			// sender hears too.
			await().pollDelay(Duration.ZERO)
				.pollInterval(Duration.ofMillis(1))
				.atMost(Duration.ofMillis(100))
				.until(taken::isDone);
			assertThat(taken.get()).isEqualTo("x");
			a.done("x");
		}
	}

	@Test
	void addsCommittedTogetherSendOneNoticeForTheirQueue() throws Exception {
		HikariDataSource pool = pool(2);
		try (Listening listening = new Listening(channel())) {
			try (CallerTransaction transaction = new CallerTransaction()) {
				DelayingQueue<String> inTransaction = track(
						instance(transaction.dataSource()).workerDataSource(pool).buildDelayingQueue());
				for (int i = 0; i < 5; i++) {
					inTransaction.add("tx-" + i);
				}
				inTransaction.addAll(List.of("tx-5", "tx-6", "tx-7"));
				transaction.commit();
			}
			assertThat(noticesUntilBarrier(listening)).as("in the caller's transaction").isOne();
			DelayingQueue<String> grouped = track(instance(pool).buildDelayingQueue());
			List<String> items = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				items.add("own-" + i);
			}
			grouped.addAll(items);
			// Sent in the adds' own commit: heard before a notice sent after the call.
			assertThat(noticesUntilBarrier(listening)).as("in one commit of the handle's own").isOne();
		}
	}

	@Test
	void aReadyAddGoesToItsOwnWaitingConsumerLeasedInTheAddWithoutANotice() throws Exception {
		HikariDataSource pool = pool(2);
		try (Listening listening = new Listening(channel())) {
			DelayingQueue<String> a = track(instance(pool).buildDelayingQueue());
			Future<String> taken = take(a);
			awaitListeningAndWaiting(pool, a);
			a.add("x");
			// Leased by the add's own statement, for the consumer reserved before it: no
			// claim, and nobody else to tell.
			assertThat(TestSql.queryLong("SELECT state FROM " + this.fixture.table() + " WHERE item = 'x'"))
				.as("leased when the add returns")
				.isOne();
			assertThat(noticesUntilBarrier(listening)).as("no notice").isZero();
			// Only its own signal can wake it (it polls hourly).
			assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("x");
			a.add("y");
			assertThat(noticesUntilBarrier(listening)).as("no consumer waits: queued and told").isOne();
			a.done("x");
		}
	}

	@Test
	void anotherInstancesConsumerTakesAnItemWhenTheConsumerWaitingAtTheAddLeavesBeforeItsCommit() throws Exception {
		HikariDataSource poolB = pool(2);
		DelayingQueue<String> b = track(instance(poolB).buildDelayingQueue());
		Future<String> taken = take(b);
		awaitListeningAndWaiting(poolB, b);
		CountDownLatch atGate = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		DataSource gated = gateAdder(pool(2), atGate, release);
		DelayingQueue<String> a = track(instance(pool(2)).workerDataSource(gated).buildDelayingQueue());
		// A's only consumer waits when the add begins, and leaves (its poll's deadline)
		// before the add commits.
		Future<String> polled = this.threads.submit(() -> a.poll(Duration.ofSeconds(3)));
		// Listening too: the look its LISTEN owes a new subscriber would take the
		// consumer's reservation (its notice granted).
		awaitListeningAndWaiting(gated, a);
		FutureTask<Void> add = new FutureTask<>(() -> a.add("x"), null);
		Thread adder = new Thread(add, "adder-a");
		adder.setDaemon(true);
		adder.start();
		assertThat(atGate.await(SOON.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(EngineFixture.statements(a).waitingConsumers()).as("waiting when the add began").isOne();
		assertThat(polled.get(SOON.toSeconds(), TimeUnit.SECONDS)).isNull();
		release.countDown();
		add.get(SOON.toSeconds(), TimeUnit.SECONDS);
		// B polls hourly: only a notice wakes it (the add leased x for A's consumer, who
		// had left: A hands it back, and tells the others).
		assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("x");
		assertThat(TestSql.queryLong("SELECT last_value FROM " + this.fixture.table() + "_token"))
			.as("x's seq, the token of A's lease made by the add, the token of B's claim")
			.isEqualTo(3);
		b.done("x");
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	/**
	 * A pool whose connections taken by the thread {@code adder-a} (its add batches'
	 * statements) wait for {@code release}, saying so on {@code atGate}.
	 */
	private static DataSource gateAdder(DataSource pool, CountDownLatch atGate, CountDownLatch release) {
		return (DataSource) Proxy.newProxyInstance(PostgresDefaultPathTests.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")
							&& Thread.currentThread().getName().equals("adder-a")) {
						atGate.countDown();
						release.await();
					}
					try {
						return method.invoke(pool, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	@Test
	void aBatchWhoseNoticeFindsTheNotifyQueueFullIsStillAddedAndItsNoticeSentApart() throws Exception {
		DelayingQueue<String> a = track(instance(pool(2)).buildDelayingQueue());
		HikariDataSource poolB = pool(2);
		DelayingQueue<String> b = track(instance(poolB).buildDelayingQueue());
		Future<String> taken = take(b);
		awaitListeningAndWaiting(poolB, b);
		String table = this.fixture.table();
		refuseTheFirstCommitAsWithAFullNotifyQueue(table);
		try {
			a.add("x");
			assertThat(TestSql.queryLong("SELECT last_value FROM " + table + "_refusals"))
				.as("refused once, then run once more")
				.isEqualTo(2);
			// B polls hourly: only the notice thread's notice wakes it.
			assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("x");
			b.done("x");
			assertThat(TestSql.count(table)).isZero();
		}
		finally {
			TestSql.update("DROP TRIGGER " + table + "_refuse ON " + table);
			TestSql.update("DROP FUNCTION " + table + "_refuse()");
			TestSql.update("DROP SEQUENCE " + table + "_refusals");
		}
	}

	/**
	 * Makes the first commit that inserts a row into {@code table} fail as PostgreSQL
	 * fails one that notifies while its {@code NOTIFY} queue is full (SQLSTATE 54000, its
	 * message), at the commit (a deferred trigger); the queue itself cannot be filled
	 * here (8 GB). The later commits pass. Counts the rows inserted in {@code
	 *
	<table>
	 * _refusals}.
	 */
	private static void refuseTheFirstCommitAsWithAFullNotifyQueue(String table) {
		TestSql.update("CREATE SEQUENCE " + table + "_refusals");
		TestSql.update("CREATE FUNCTION " + table + "_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
				+ " IF nextval('" + table + "_refusals') = 1 THEN"
				+ " RAISE EXCEPTION 'too many notifications in the NOTIFY queue' USING ERRCODE = '54000'; END IF;"
				+ " RETURN NULL; END $$");
		TestSql.update("CREATE CONSTRAINT TRIGGER " + table + "_refuse AFTER INSERT ON " + table
				+ " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION " + table + "_refuse()");
	}

	@Test
	void anAddCommittedOnItsOwnNotifiesInItsOwnTransactionStampedWithTheEarliestDueTime() throws Exception {
		HikariDataSource pool = pool(2);
		try (Listening listening = new Listening(channel())) {
			DelayingQueue<String> a = track(instance(pool).buildDelayingQueue());
			long hourFromNowMillis = TestSql
				.queryLong("SELECT (extract(epoch FROM now() + interval '1 hour') * 1000)::bigint");
			a.addAfter("later", Duration.ofHours(1));
			// Committed with the add: heard before a notice sent after the call returned.
			assertThat(noticesUntilBarrier(listening)).isOne();
			Notices.Notice delayed = listening.received()
				.stream()
				.filter((notice) -> "listened".equals(notice.queue()))
				.findFirst()
				.orElseThrow();
			assertThat(delayed.sender()).as("stamped: its sender does not hear it").isNotNull();
			assertThat(delayed.dueEpochMillis()).isBetween(hourFromNowMillis - 60_000, hourFromNowMillis + 60_000);
			a.add("x");
			assertThat(noticesUntilBarrier(listening)).isOne();
			assertThat(listening.received()
				.stream()
				.filter((notice) -> "listened".equals(notice.queue()))
				.map(Notices.Notice::dueEpochMillis)).as("ready now").containsExactly(delayed.dueEpochMillis(), 0L);
			// A notice thread of this name started by a handle of an earlier test ends
			// soon after its close; this handle's would live until its own.
			await().atMost(SOON)
				.untilAsserted(
						() -> assertThat(thread("workqueue-listened-notices")).as("no notice of a commit of its own")
							.isNull());
			assertThat(a.poll(Duration.ZERO)).isEqualTo("x");
			a.done("x");
		}
	}

	@Test
	void aDelayedItemAddedThroughOneInstanceWakesAnothersConsumerWhenDueAndNotBefore() throws Exception {
		DelayingQueue<String> a = track(instance(pool(2)).buildDelayingQueue());
		HikariDataSource poolB = pool(2);
		DelayingQueue<String> b = track(instance(poolB).buildDelayingQueue());
		Future<String> taken = take(b);
		awaitListeningAndWaiting(poolB, b);
		a.addAfter("later", Duration.ofMillis(1500));
		assertThat(TestSql.count(this.fixture.table())).isOne();
		assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("later");
		// The claim leased it at its statement's time: on the database's clock, not
		// before the item was due (the default lease is 30 s, and no renewal ran yet).
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " r JOIN " + this.fixture.table()
				+ "_lease l ON l.token = r.token"
				+ " WHERE r.item = 'later' AND r.state = 1 AND l.lease_until - interval '30 seconds' >= r.ready_at"))
			.as("claimed at or after its due time")
			.isOne();
		b.done("later");
	}

	@Test
	void aTerminatedListenConnectionIsReopenedAndTheNextAddIsStillHeard() throws Exception {
		DelayingQueue<String> a = track(instance(pool(2)).buildDelayingQueue());
		HikariDataSource poolB = pool(2);
		DelayingQueue<String> b = track(instance(poolB).buildDelayingQueue());
		Future<String> taken = take(b);
		awaitListeningAndWaiting(poolB, b);
		Notices notices = Notices.shared(poolB);
		int killed = notices.backendPid();
		assertThat(TestSql.queryLong("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
				+ " WHERE pid = ? AND application_name = ?", killed, Notices.APPLICATION_NAME))
			.isOne();
		await().atMost(SOON).until(() -> notices.backendPid() != 0 && notices.backendPid() != killed);
		awaitListeningAndWaiting(poolB, b);
		addUnannounced("unannounced");
		assertStillWaiting(taken);
		a.add("x");
		assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("unannounced");
		b.done("unannounced");
		assertThat(b.poll(Duration.ZERO)).isEqualTo("x");
		b.done("x");
	}

	@Test
	void pollOnlyInstancesWorkWithNothingElseChangedAndNeitherListenNorNotify() throws Exception {
		AtomicInteger listenConnections = new AtomicInteger();
		Supplier<Connection> counting = () -> {
			listenConnections.incrementAndGet();
			try {
				return PostgresDatabase.connect();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		};
		try (Listening listening = new Listening(channel())) {
			DelayingQueue<String> a = track(
					instance(pool(2)).listen(false).listenConnection(counting).buildDelayingQueue());
			DelayingQueue<String> b = track(instance(pool(2)).listen(false)
				.listenConnection(counting)
				.pollInterval(Duration.ofMillis(100))
				.buildDelayingQueue());
			Future<String> taken = take(b);
			await().atMost(SOON).until(() -> EngineFixture.statements(b).waitingConsumers() == 1);
			a.add("x");
			a.addAfter("later", Duration.ofMillis(300));
			assertThat(taken.get(SOON.toSeconds(), TimeUnit.SECONDS)).isEqualTo("x");
			b.done("x");
			assertThat(b.poll(SOON)).isEqualTo("later");
			b.done("later");
			await().during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(1))
				.until(() -> listening.received().isEmpty());
		}
		assertThat(listenConnections).as("no LISTEN connection").hasValue(0);
		assertThat(Notices.shared(counting)).isNull();
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void manyHandlesOnOnePoolUseAtMostItsConnectionsPlusOneListenConnection() throws Exception {
		int poolSize = 3;
		HikariDataSource pool = pool(poolSize);
		AtomicInteger listenConnections = new AtomicInteger();
		AtomicLong listenPid = new AtomicLong();
		// As the Spring starter does: one supplier for every queue, outside the pool.
		Supplier<Connection> listen = () -> {
			try {
				Connection connection = PostgresDatabase.connect();
				listenPid.set(connection.unwrap(PGConnection.class).getBackendPID());
				listenConnections.incrementAndGet();
				return connection;
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		};
		List<DelayingQueue<String>> handles = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			handles.add(track(instance(pool).name("busy-" + (i % 3)).listenConnection(listen).buildDelayingQueue()));
		}
		int most = traffic(handles, () -> connections(listenPid.get()));
		assertThat(most).as("connections of the pool and the LISTEN one").isLessThanOrEqualTo(poolSize + 1);
		assertThat(listenConnections).as("one LISTEN connection for every handle").hasValue(1);
		assertThat(connections(listenPid.get())).isEqualTo(poolSize + 1);
	}

	@Test
	void byDefaultTheListenConnectionIsOpenedOutsideThePool() throws Exception {
		int poolSize = 3;
		HikariDataSource pool = pool(poolSize);
		List<DelayingQueue<String>> handles = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			handles.add(track(instance(pool).name("busy-" + (i % 3)).buildDelayingQueue()));
		}
		int most = traffic(handles, () -> connections(listenerPid(pool)));
		assertThat(most).as("connections of the pool and the LISTEN one").isLessThanOrEqualTo(poolSize + 1);
		assertThat(listenerPid(pool)).isNotZero();
		await().atMost(Duration.ofSeconds(10)).until(() -> connections(listenerPid(pool)) == poolSize + 1);
		assertThat(
				TestSql.queryString("SELECT application_name FROM pg_stat_activity WHERE pid = ?", listenerPid(pool)))
			.isEqualTo(Notices.APPLICATION_NAME);
	}

	@Test
	void aQueueBuiltWithTheDefaultsVacuumsItsTableWhereAutovacuumIsOff() throws Exception {
		assertThat(TestSql.queryString("SHOW autovacuum")).as("this server runs without autovacuum").isEqualTo("off");
		DelayingQueue<String> queue = track(instance(pool(2)).buildDelayingQueue());
		assertThat(vacuums()).isZero();
		// Each item leaves three dead row versions or more (add, claim, done): the
		// default threshold is 1,000.
		for (int round = 0; round < 5; round++) {
			List<String> items = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				items.add("item-" + round + "-" + i);
			}
			queue.addAll(items);
			for (String item = queue.poll(Duration.ZERO); item != null; item = queue.poll(Duration.ZERO)) {
				queue.done(item);
			}
		}
		assertThat(TestSql.count(this.fixture.table())).isZero();
		await().atMost(SOON).until(() -> vacuums() >= 1);
	}

	/**
	 * Runs items through the handles, two consumers each, while counting the connections;
	 * returns the most counted.
	 */
	private int traffic(List<DelayingQueue<String>> handles, Supplier<Integer> connections) {
		Set<String> processed = ConcurrentHashMap.newKeySet();
		for (DelayingQueue<String> handle : handles) {
			for (int consumer = 0; consumer < 2; consumer++) {
				this.threads.submit(() -> {
					for (String item = handle.get(); item != null; item = handle.get()) {
						processed.add(item);
						handle.done(item);
					}
					return null;
				});
			}
		}
		int total = 0;
		for (int i = 0; i < handles.size(); i++) {
			List<String> items = new ArrayList<>();
			for (int k = 0; k < 40; k++) {
				items.add("h" + i + "-" + k);
			}
			handles.get(i).addAll(items);
			total += items.size();
		}
		int expected = total;
		int[] most = { 0 };
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
			most[0] = Math.max(most[0], connections.get());
			return processed.size() == expected;
		});
		return most[0];
	}

	/** The connections of this test's pools, and the LISTEN connection. */
	private int connections(long listenPid) {
		return TestSql
			.queryLong("SELECT count(*) FROM pg_stat_activity WHERE application_name = ? OR pid = ?", this.label,
					(int) listenPid)
			.intValue();
	}

	private static int listenerPid(DataSource pool) {
		Notices notices = Notices.shared(pool);
		return (notices != null) ? notices.backendPid() : 0;
	}

	private long vacuums() {
		return TestSql.queryLong("SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = ?::regclass",
				this.fixture.table());
	}

}
