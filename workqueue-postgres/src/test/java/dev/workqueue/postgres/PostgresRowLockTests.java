package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A held item's row locked by another session (an operator's {@code SELECT ... FOR
 * UPDATE}, or an application transaction that re-added the item while it is processed)
 * for four leases holds up nothing of the queue's: the holder keeps every lease, another
 * handle gets none of its items, a {@code done} of another item returns at once, and once
 * the lock is gone the holder's {@code done} of the locked item works. Also where the
 * queue's connections have a {@code lock_timeout} (common in production), which a renewal
 * that waited for the row would run into at every retry. And a hand-back, or the keeper's
 * look for lost claims, that finds the row locked skips it and tries again: the item
 * comes back once the lock is gone, not when its lease runs out (nor keeps a shut-down
 * handle's keeper running past the lease).
 */
@RequiresPostgres
class PostgresRowLockTests {

	private static final Duration LEASE = Duration.ofMillis(1500);

	private static final List<String> ITEMS = List.of("i0", "i1", "i2", "i3", "i4", "i5");

	/** The item whose row the other session locks. */
	private static final String LOCKED = "i2";

	private final EngineFixture fixture = new EngineFixture();

	private HikariDataSource timeoutPool;

	@AfterEach
	void close() {
		try {
			this.fixture.close();
		}
		finally {
			if (this.timeoutPool != null) {
				this.timeoutPool.close();
			}
		}
	}

	@Test
	void aRowLockedForUpdateByAnotherSessionHoldsUpNoLease() throws Exception {
		holdsEveryLeaseWhileLocked(this.fixture.tableFixture().dataSource(), this::lockForUpdate);
	}

	@Test
	void aCallersTransactionThatReAddsAHeldItemHoldsUpNoLease() throws Exception {
		holdsEveryLeaseWhileLocked(this.fixture.tableFixture().dataSource(), this::reAddInATransaction);
	}

	@Test
	void withALockTimeoutOnTheQueuesConnectionsARowLockHoldsUpNoLease() throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresDatabase.URL);
		config.setMaximumPoolSize(8);
		config.setConnectionInitSql("SET lock_timeout = '300ms'");
		this.timeoutPool = new HikariDataSource(config);
		holdsEveryLeaseWhileLocked(this.timeoutPool, this::lockForUpdate);
	}

	@Test
	void aDoneWithTheNextClaimThatWaitsForALockedRowHoldsNoOtherItem() throws Exception {
		DataSource pool = this.fixture.tableFixture().dataSource();
		DelayingQueue<String> holder = handle(pool);
		DelayingQueue<String> other = handle(pool);
		holder.add(LOCKED);
		assertThat(holder.poll(Duration.ZERO)).isEqualTo(LOCKED);
		holder.addAll(List.of("ready-1", "ready-2"));
		try (Lock lock = reAddInATransaction(LOCKED)) {
			Poller<String> poller = Pollers.of(holder);
			CompletableFuture<Prioritized<String>> next = CompletableFuture.supplyAsync(() -> {
				try {
					return poller.doneAndPoll(LOCKED, Duration.ZERO);
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			});
			await().atMost(Duration.ofSeconds(10))
				.until(() -> TestSql.queryLong(
						"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
								+ " AND query LIKE '%gone AS%' AND query LIKE ?",
						"%" + this.fixture.table() + "%") > 0);
			List<String> taken = new ArrayList<>();
			await().atMost(LEASE.dividedBy(2)).pollInterval(Duration.ofMillis(20)).until(() -> {
				String item = other.poll(Duration.ZERO);
				if (item != null) {
					taken.add(item);
				}
				return taken.size() == 2;
			});
			assertThat(taken).as("ready items, while the done waits for its row")
				.containsExactlyInAnyOrder("ready-1", "ready-2");
			assertThat(next).as("the done waits for the caller's commit").isNotDone();
			lock.release();
			// The claim statement skipped the locked row and claimed none; the done of
			// its own waited, then a claim followed it.
			assertThat(next.get(10, TimeUnit.SECONDS)).as("re-added while held: queued again by its done")
				.extracting(Prioritized::item)
				.isEqualTo(LOCKED);
		}
		other.done("ready-1");
		other.done("ready-2");
		holder.done(LOCKED);
		assertThat(TestSql.count(this.fixture.table())).as("every done worked").isZero();
	}

	@Test
	void anItemHandedBackWhileAnotherSessionLocksItsRowComesBackOnceTheLockIsGone() throws Exception {
		DataSource pool = this.fixture.tableFixture().dataSource();
		// A lease far longer than the wait below: the item may not come back by running
		// out.
		DelayingQueue<String> holder = handle(pool, Duration.ofMinutes(2));
		DelayingQueue<String> other = handle(pool);
		takeTheLockedItem(holder);
		try (Lock lock = lockForUpdate(LOCKED)) {
			assertThat(EngineFixture.handle(holder).handBack()).isOne();
			assertThat(state(LOCKED)).as("skipped while locked, still leased").isEqualTo(1);
			lock.release();
		}
		takenAndDoneBy(other);
	}

	@Test
	void lostClaimsWhoseRowAnotherSessionLocksAreLookedForAgain() throws Exception {
		DelayingQueue<String> holder = handle(this.fixture.tableFixture().dataSource(), Duration.ofMinutes(2));
		takeTheLockedItem(holder);
		LeaseKeeper keeper = EngineFixture.statements(holder).keeper();
		try (Lock lock = lockForUpdate(LOCKED)) {
			// As if the claim's answer was lost: the handle knows no lease.
			assertThat(keeper.reconcile(List::of)).as("a row skipped: look again").isFalse();
			assertThat(state(LOCKED)).isEqualTo(1);
			lock.release();
		}
		assertThat(keeper.reconcile(List::of)).isTrue();
		assertThat(state(LOCKED)).as("queued again").isZero();
	}

	@Test
	void aShutDownHandlesKeeperEndsThoughARowItHandsBackStaysLockedPastItsLease() throws Exception {
		DataSource pool = this.fixture.tableFixture().dataSource();
		DelayingQueue<String> holder = handle(pool);
		DelayingQueue<String> other = handle(pool);
		takeTheLockedItem(holder);
		LeaseKeeper keeper = EngineFixture.statements(holder).keeper();
		try (Lock lock = lockForUpdate(LOCKED)) {
			holder.shutDown();
			assertThat(EngineFixture.handle(holder).handBack()).isOne();
			await().atMost(LEASE.plusSeconds(5)).until(keeper::stopped);
			assertThat(state(LOCKED)).as("still leased: the lock never went").isEqualTo(1);
			lock.release();
		}
		// The lease ran out: the other handle's reap queues the item again.
		takenAndDoneBy(other);
	}

	@Test
	void aHandBackNamesNoLeaseSkippedWhoseItemRowIsGone() throws Exception {
		DelayingQueue<String> holder = handle(this.fixture.tableFixture().dataSource());
		takeTheLockedItem(holder);
		PostgresLease lease = new PostgresLease(LOCKED, TestSql.token(this.fixture.table(), LOCKED), 0, Long.MAX_VALUE);
		// An operator's delete leaves the lease row, for a reap to find stale.
		TestSql.update("DELETE FROM " + this.fixture.table() + " WHERE item = ?", LOCKED);
		ReleaseStatements statements = EngineFixture.statements(holder).keeper().statements();
		assertThat(statements.handBackInPlace(List.of(lease))).isEmpty();
	}

	private static void takeTheLockedItem(DelayingQueue<String> holder) throws InterruptedException {
		holder.add(LOCKED);
		assertThat(holder.poll(Duration.ZERO)).isEqualTo(LOCKED);
	}

	/**
	 * The other handle takes the locked item once it is back, and ends it: the table is
	 * empty.
	 */
	private void takenAndDoneBy(DelayingQueue<String> other) {
		await().atMost(Duration.ofSeconds(10)).until(() -> LOCKED.equals(other.poll(Duration.ZERO)));
		other.done(LOCKED);
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	private long state(String item) {
		return TestSql.queryLong("SELECT state FROM " + this.fixture.table() + " WHERE item = ?", item);
	}

	private DelayingQueue<String> handle(DataSource pool) {
		return handle(pool, LEASE);
	}

	private DelayingQueue<String> handle(DataSource pool, Duration lease) {
		return this.fixture.track(PostgresWorkQueues.builder(pool, ItemCodec.strings())
			.table(this.fixture.table())
			.name("locked")
			.lease(lease)
			.listen(false)
			.vacuum(VacuumPolicy.NEVER)
			.buildDelayingQueue());
	}

	private void holdsEveryLeaseWhileLocked(DataSource pool, Locker locker) throws Exception {
		DelayingQueue<String> holder = handle(pool);
		DelayingQueue<String> other = handle(pool);
		holder.addAll(ITEMS);
		List<String> held = new ArrayList<>();
		for (int i = 0; i < ITEMS.size(); i++) {
			held.add(holder.poll(Duration.ZERO));
		}
		assertThat(held).containsExactlyElementsOf(ITEMS);
		boolean reAdded;
		try (Lock lock = locker.lock(LOCKED)) {
			reAdded = lock.reAdded();
			nobodyElseGetsAnItemFor(other, LEASE.multipliedBy(2));
			long startNanos = System.nanoTime();
			CompletableFuture.runAsync(() -> holder.done("i0")).get(LEASE.toMillis() / 2, TimeUnit.MILLISECONDS);
			assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).as("a done of an item nobody locked")
				.isLessThan(LEASE.dividedBy(2));
			nobodyElseGetsAnItemFor(other, LEASE.multipliedBy(2));
			lock.release();
		}
		for (String item : ITEMS.subList(1, ITEMS.size())) {
			holder.done(item);
		}
		if (reAdded) {
			assertThat(holder.poll(Duration.ZERO)).as("re-added while held: queued again by its done")
				.isEqualTo(LOCKED);
			holder.done(LOCKED);
		}
		assertThat(TestSql.count(this.fixture.table())).as("every done worked").isZero();
		assertThat(EngineFixture.handle(holder).stalled() + EngineFixture.handle(other).stalled())
			.as("no lease ran out")
			.isZero();
	}

	private void nobodyElseGetsAnItemFor(DelayingQueue<String> other, Duration duration) {
		List<String> taken = new ArrayList<>();
		await().during(duration).atMost(duration.plusSeconds(5)).pollInterval(Duration.ofMillis(100)).until(() -> {
			String item = other.poll(Duration.ZERO);
			if (item != null) {
				taken.add(item);
			}
			return true;
		});
		assertThat(taken).as("items another handle holds, taken by this one").isEmpty();
	}

	/** {@code SELECT ... FOR UPDATE} of the item's row in a transaction left open. */
	private Lock lockForUpdate(String item) throws SQLException {
		Connection connection = PostgresDatabase.connect();
		connection.setAutoCommit(false);
		try (Statement statement = connection.createStatement()) {
			statement.execute("SELECT * FROM " + this.fixture.table() + " WHERE queue = 'locked' AND item = '" + item
					+ "' FOR UPDATE");
		}
		return new Lock() {

			@Override
			public void release() throws SQLException {
				connection.rollback();
			}

			@Override
			public void close() throws SQLException {
				connection.close();
			}

		};
	}

	/** An add of the item in a caller's transaction left open: the row stays locked. */
	private Lock reAddInATransaction(String item) throws SQLException {
		CallerTransaction transaction = new CallerTransaction();
		DelayingQueue<String> adder = this.fixture
			.track(this.fixture.builder("locked", transaction.dataSource()).lease(LEASE).buildDelayingQueue());
		adder.add(item);
		return new Lock() {

			@Override
			public boolean reAdded() {
				return true;
			}

			@Override
			public void release() throws SQLException {
				transaction.commit();
			}

			@Override
			public void close() throws SQLException {
				transaction.close();
			}

		};
	}

	/** Locks an item's row until released. */
	@FunctionalInterface
	private interface Locker {

		Lock lock(String item) throws SQLException;

	}

	/** A row lock held by another session. */
	private interface Lock extends AutoCloseable {

		/** Whether the lock is that of an add of the item. */
		default boolean reAdded() {
			return false;
		}

		/** Ends the other session's transaction. */
		void release() throws SQLException;

		@Override
		void close() throws SQLException;

	}

}
