package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.postgres.ReleaseStatements.Ended;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.ReadySignal.Wakeup;
import dev.workqueue.store.TraceSlot;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a handle's {@code get} and {@code poll} take an item: claim the next ready one
 * under a new lease, or wait on the {@link ReadySignal}.
 * <p>
 * <b>Claiming ahead.</b> A claim leases an item for its consumer and one for each
 * consumer of the handle waiting for a notice (at most {@link ReadyOrder#claimLimit()} in
 * all), in one statement; the extra ones wait here, leased and renewed with the rest,
 * until those consumers take them, and only while their lease holds a tenth of its length
 * longer (else they are handed back). They are handed back when the last consumer leaves
 * without them, and at shutdown. A worker's {@code done} can ride with its next claim
 * ({@link dev.workqueue.store.SharedPoller#doneAndPoll}).
 * <p>
 * <b>Late answers.</b> A claim's leases count from when it was sent. One answered a third
 * of the lease or more later (a pause, a slow link) may come after its leases ran out and
 * their items went to another handle: its leases are renewed before any item is handed
 * out, and an item whose lease was not renewed is not handed out (see
 * {@link #stillHeld}).
 * <p>
 * A claim that fails may still have leased items (the answer was lost after the commit):
 * their rows name this handle as holder, so the {@link LeaseKeeper} finds them and hands
 * them back. Claims take {@code claims} (shared) while their leases are not yet in the
 * book, so that the keeper (which takes it exclusively) never mistakes them for lost
 * ones.
 * <p>
 * A payload the codec cannot decode is moved to the table's {@link DeadLetters}; a
 * claimed item one of the handle's workers still holds is parked ({@link LeaseBook});
 * either way the taker looks again.
 * <p>
 * <b>Trace contexts.</b> A claim takes the trace records of the items it leases out of
 * their rows; the item a poller's take hands out puts its contexts in that poller's
 * {@link TraceSlot}, and an item claimed ahead keeps them until it is handed out. An item
 * handed back unused, or parked, loses them, as a hand-back after a hand-out does.
 *
 * @param <T> the item type
 */
final class ItemTaker<T> {

	private static final System.Logger logger = System.getLogger(ItemTaker.class.getName());

	private final ItemText<T> text;

	private final QueueDatabase database;

	private final QueueSql sql;

	private final LeaseRenewal renewal;

	private final LeaseBook<T, PostgresLease> book;

	private final LeaseReleases<T, PostgresLease> releases;

	private final ReleaseStatements statements;

	private final ReadySignal signal;

	private final HandleLifecycle lifecycle;

	/** The queue's hook, guarded. */
	private final WorkQueueMetrics metrics;

	private final Clock clock;

	private final FinishedRows rows;

	private final DeadLetters deadLetters;

	private final Lock claims;

	/** Called after a claim failed: the keeper looks for what it may have leased. */
	private final Runnable failedClaim;

	private final String holder;

	private final long leaseNanos;

	/** The starvation timeout in µs, or -1 for none. */
	private final long starvationMicros;

	private final ConcurrentLinkedQueue<Ahead<T>> ahead = new ConcurrentLinkedQueue<>();

	private final AtomicInteger consumers = new AtomicInteger();

	ItemTaker(ItemText<T> text, QueueDatabase database, QueueSql sql, LeaseRenewal renewal,
			LeaseBook<T, PostgresLease> book, LeaseReleases<T, PostgresLease> releases, ReleaseStatements statements,
			ReadySignal signal, HandleLifecycle lifecycle, WorkQueueMetrics metrics, Clock clock, FinishedRows rows,
			DeadLetters deadLetters, Lock claims, Runnable failedClaim, String holder, long leaseNanos,
			long starvationMicros) {
		this.text = text;
		this.database = database;
		this.sql = sql;
		this.renewal = renewal;
		this.book = book;
		this.releases = releases;
		this.statements = statements;
		this.signal = signal;
		this.lifecycle = lifecycle;
		this.metrics = metrics;
		this.clock = clock;
		this.rows = rows;
		this.deadLetters = deadLetters;
		this.claims = claims;
		this.failedClaim = failedClaim;
		this.holder = holder;
		this.leaseNanos = leaseNanos;
		this.starvationMicros = starvationMicros;
	}

	/**
	 * Takes the next item, waiting at most {@code timeoutNanos} when {@code bounded}, and
	 * only until {@code wakeup} comes when given; first ends {@code owedDone}, if given,
	 * in the same statement as the claim when it can.
	 * @param bounded whether the wait is bounded
	 * @param timeoutNanos the bound, not negative
	 * @param wakeup the wake-up of the poller that takes, or {@code null}
	 * @param owedDone a lease whose done rides with this claim, or {@code null}
	 * @param traces where the trace contexts of the item taken go (set to {@code null}
	 * first), or {@code null} to drop them
	 * @return the item and the priority it is handed out with, or {@code null} on
	 * timeout, wake-up, or once shut down
	 * @throws InterruptedException if interrupted while waiting
	 */
	Prioritized<T> take(boolean bounded, long timeoutNanos, Wakeup wakeup, PostgresLease owedDone, TraceSlot traces)
			throws InterruptedException {
		if (traces != null) {
			traces.trace(null);
		}
		long deadlineNanos = bounded ? Nanos.add(this.clock.nanoTime(), timeoutNanos) : 0;
		boolean waited = false;
		// Whether the signal granted this consumer a look it has not made yet: it makes
		// it, or a consumer beside it would sleep while items are ready (ReadySignal).
		boolean granted = false;
		PostgresLease doneFirst = owedDone;
		this.consumers.incrementAndGet();
		try {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			while (true) {
				long seen = this.signal.epoch();
				if (!this.lifecycle.enter()) {
					return null;
				}
				try {
					if (!granted && ((waited && bounded && this.clock.nanoTime() >= deadlineNanos)
							|| (wakeup != null && wakeup.take()))) {
						return null;
					}
					granted = false;
					if (doneFirst != null && !this.ahead.isEmpty()) {
						PostgresLease done = doneFirst;
						doneFirst = null;
						this.releases.sendDone(done);
					}
					Prioritized<T> early = takeAhead(traces);
					if (early != null) {
						return early;
					}
					// A waiting consumer does not look when another found nothing and no
					// notice came since; a consumer woken, or polling without a wait,
					// does.
					if (waited || doneFirst != null || !this.signal.knownEmpty(seen)
							|| (bounded && timeoutNanos == 0)) {
						PostgresLease done = doneFirst;
						doneFirst = null;
						Claimed<T> claimed = claim(done, seen);
						if (claimed.item() != null) {
							if (traces != null) {
								traces.trace(claimed.trace());
							}
							return claimed.item();
						}
						if (claimed.leased() > 0) {
							// Parked or dead-lettered: look again at once.
							continue;
						}
					}
				}
				finally {
					this.lifecycle.exit();
				}
				if (!this.signal.awaitNotice(bounded, deadlineNanos, wakeup) || this.lifecycle.isShuttingDown()) {
					return null;
				}
				waited = true;
				granted = true;
			}
		}
		finally {
			if (this.consumers.decrementAndGet() == 0 && !this.ahead.isEmpty()) {
				// The last consumer out: nobody is left to take them.
				handBackAhead();
			}
			if (doneFirst != null) {
				// Left before it could look (shut down, woken, interrupted).
				this.releases.sendDone(doneFirst);
			}
		}
	}

	/**
	 * One claim, ending {@code done} first if given.
	 * @return the item to hand out (or none) with its trace contexts, and how many the
	 * claim leased
	 */
	private Claimed<T> claim(PostgresLease done, long seen) {
		int count = Math.min(this.sql.claimLimit, 1 + this.signal.waiting());
		long sentNanos = this.clock.nanoTime();
		List<Row> leased;
		ClaimAnswer answer;
		this.claims.lock();
		try {
			try {
				answer = this.database.run("take from", (connection) -> {
					SqlStatement sql = (done != null) ? this.sql.doneAndClaim : this.sql.claim;
					try (PreparedStatement statement = sql.prepare(connection)) {
						this.database.bindNow(sql, statement);
						if (done != null) {
							this.statements.bindDone(sql, statement, done);
						}
						bindClaim(sql, statement, count);
						try (ResultSet rows = statement.executeQuery()) {
							return ClaimAnswer.read(rows, done != null);
						}
					}
				});
			}
			catch (PostgresQueueException ex) {
				this.failedClaim.run();
				throw ex;
			}
			finally {
				if (done != null) {
					this.releases.doneSent(done);
				}
			}
			long receivedNanos = this.clock.nanoTime();
			this.signal.measured(answer.nowMicros(), receivedNanos);
			leased = answer.rows();
			this.rows.finished(leased.size());
			if (answer.ended() != null) {
				this.statements.ended(answer.ended());
			}
			long dueInNanos = (answer.dueInMicros() != null) ? answer.dueInMicros() * 1000 : -1;
			if (leased.size() < count) {
				this.signal.lookedEmpty(seen, dueInNanos);
			}
			else {
				this.signal.lookedFull(dueInNanos);
			}
			if (leased.isEmpty()) {
				return new Claimed<>(null, null, 0);
			}
			long validUntilNanos = Nanos.add(sentNanos, this.leaseNanos);
			if (receivedNanos - sentNanos >= this.leaseNanos / 3) {
				long renewedNanos = this.clock.nanoTime();
				List<Row> held = stillHeld(leased, receivedNanos - sentNanos);
				if (held.isEmpty()) {
					return new Claimed<>(null, null, leased.size());
				}
				leased = held;
				validUntilNanos = Nanos.add(renewedNanos, this.leaseNanos);
			}
			return inHand(leased, receivedNanos, validUntilNanos, count);
		}
		finally {
			this.claims.unlock();
		}
	}

	/**
	 * The rows of a claim answered late whose leases still hold. The keeper renews the
	 * leases in the book every third of the lease, so a lease taken in hand within a
	 * third of the lease after its claim was sent is renewed in time; one answered later
	 * (a pause, a slow link) may have run out before its answer came, and its item may be
	 * another handle's by now. Its leases are renewed here first, and an item whose lease
	 * was not is not handed out: its row was queued again (and maybe leased to another).
	 * If the renewal fails, nothing is handed out, and the keeper hands the claim's rows
	 * back as those of a claim whose answer was lost.
	 * @return the rows renewed
	 */
	private List<Row> stillHeld(List<Row> leased, long elapsedNanos) {
		long[] tokens = leased.stream().mapToLong(Row::token).toArray();
		Set<Long> renewed;
		try {
			renewed = this.renewal.renew(tokens);
		}
		catch (PostgresQueueException ex) {
			this.failedClaim.run();
			throw ex;
		}
		List<Row> held = leased.stream().filter((row) -> renewed.contains(row.token())).toList();
		if (held.size() < leased.size()) {
			logger.log(Level.WARNING,
					"Queue '" + this.database.name() + "' did not hand out " + (leased.size() - held.size())
							+ " item(s) that a claim answered " + Duration.ofNanos(elapsedNanos)
							+ " after it was sent, with a lease of " + Duration.ofNanos(this.leaseNanos) + ": "
							+ "their lease ran out meanwhile (another instance may hold them)");
		}
		return held;
	}

	private void bindClaim(SqlStatement sql, PreparedStatement statement, int count) throws SQLException {
		sql.setString(statement, "queue", this.database.name());
		if (this.starvationMicros >= 0) {
			sql.setLong(statement, "starvation", this.starvationMicros);
		}
		sql.setInt(statement, "limit", count);
		sql.setString(statement, "holder", this.holder);
		sql.setLong(statement, "lease", Delays.micros(this.leaseNanos));
	}

	/**
	 * Takes the leases of a claim in hand: the first item for this consumer, the others
	 * ahead for the waiting ones. Called while {@code claims} is held.
	 */
	private Claimed<T> inHand(List<Row> leased, long nowNanos, long validUntilNanos, int count) {
		List<Ahead<T>> mine = new ArrayList<>(leased.size());
		for (Row row : leased) {
			PostgresLease lease = new PostgresLease(row.encoded(), row.token(), nowNanos, validUntilNanos);
			T item;
			try {
				item = this.text.decode(row.encoded());
			}
			catch (RuntimeException ex) {
				this.deadLetters.moveAside(lease, ex);
				continue;
			}
			if (this.book.take(item, lease) == LeaseBook.Taken.HELD) {
				mine.add(new Ahead<>(new Prioritized<>(item, row.priority()), lease, row.queuedMicros() * 1000,
						nowNanos, (row.trace() != null) ? ItemTrace.fromRecord(row.trace()) : null));
			}
		}
		if (this.lifecycle.isShuttingDown()) {
			// Shut down meanwhile: a shut-down handle hands out nothing more.
			for (Ahead<T> next : mine) {
				handBackQuietly(next.item().item());
			}
			return new Claimed<>(null, null, leased.size());
		}
		if (mine.isEmpty()) {
			return new Claimed<>(null, null, leased.size());
		}
		Ahead<T> first = mine.get(0);
		this.metrics.handedOut(first.queuedNanos());
		for (int i = 1; i < mine.size(); i++) {
			this.ahead.add(mine.get(i));
			this.signal.signal();
		}
		if (leased.size() == count) {
			this.signal.moreMayBeReady();
		}
		if (this.lifecycle.isShuttingDown()) {
			// Shut down while they were put aside: whoever sees it hands them back.
			handBackAhead();
		}
		return new Claimed<>(first.item(), first.trace(), leased.size());
	}

	/**
	 * Hands out an item claimed ahead, if one is left whose lease still holds long
	 * enough, putting its trace contexts in {@code traces} if given; hands back those
	 * whose lease does not (their contexts are dropped, as a hand-back after a hand-out
	 * drops them).
	 */
	private Prioritized<T> takeAhead(TraceSlot traces) {
		long marginNanos = this.leaseNanos / 10;
		for (Ahead<T> next = this.ahead.poll(); next != null; next = this.ahead.poll()) {
			long nowNanos = this.clock.nanoTime();
			if (this.book.handsOut(next.item().item(), next.lease(), nowNanos, marginNanos)) {
				if (this.metrics.recordsDurations()) {
					this.metrics.handedOut(next.queuedNanos() + (nowNanos - next.leasedNanos()));
				}
				if (traces != null) {
					traces.trace(next.trace());
				}
				return next.item();
			}
			handBackQuietly(next.item().item());
		}
		return null;
	}

	/**
	 * Hands every item claimed ahead back: nobody is left to take them, or shutdown. Each
	 * consumer leaving {@link #take} counts itself out before it looks at them, and one
	 * that puts them aside does so before it counts itself out, so the last one out sees
	 * every item left.
	 */
	void handBackAhead() {
		for (Ahead<T> next = this.ahead.poll(); next != null; next = this.ahead.poll()) {
			handBackQuietly(next.item().item());
		}
	}

	private void handBackQuietly(T item) {
		try {
			this.releases.handBackUnused(item);
		}
		catch (PostgresQueueException ex) {
			// Remembered: the keeper hands it back.
		}
	}

	long deadLettered() {
		return this.deadLetters.moved();
	}

	/**
	 * What a claim gave this consumer (and its trace contexts), and how many items it
	 * leased in all.
	 */
	private record Claimed<T>(Prioritized<T> item, ItemTrace trace, int leased) {

	}

	/** One item a claim leased, with its trace record ({@code null} for none). */
	private record Row(String encoded, int priority, long token, long queuedMicros, String trace) {

	}

	/**
	 * A claim's answer: the items leased in hand-out order, the time until the earliest
	 * waiting item is due ({@code null} if none), the statement's time, and what the done
	 * that rode with it did ({@code null} if none did).
	 */
	private record ClaimAnswer(List<Row> rows, Long dueInMicros, long nowMicros, Ended ended) {

		static ClaimAnswer read(ResultSet rows, boolean withDone) throws SQLException {
			List<Row> leased = new ArrayList<>();
			Long dueInMicros = null;
			long nowMicros = 0;
			Ended ended = null;
			while (rows.next()) {
				String encoded = rows.getString(1);
				if (encoded != null) {
					leased.add(new Row(encoded, rows.getInt(2), rows.getLong(3), rows.getLong(4), rows.getString(5)));
				}
				long due = rows.getLong(6);
				dueInMicros = rows.wasNull() ? null : due;
				nowMicros = rows.getLong(7);
				if (withDone) {
					long deleted = rows.getLong(8);
					long backAt = rows.getLong(9);
					ended = new Ended(deleted, rows.wasNull() ? null : backAt, nowMicros);
				}
			}
			return new ClaimAnswer(leased, dueInMicros, nowMicros, ended);
		}

	}

	/**
	 * An item claimed ahead for a waiting consumer.
	 *
	 * @param item the item and its priority
	 * @param lease its lease
	 * @param queuedNanos how long it had been ready when claimed
	 * @param leasedNanos when it was claimed, on the clock
	 * @param trace its trace contexts, or {@code null}
	 */
	private record Ahead<T>(Prioritized<T> item, PostgresLease lease, long queuedNanos, long leasedNanos,
			ItemTrace trace) {

	}

}
