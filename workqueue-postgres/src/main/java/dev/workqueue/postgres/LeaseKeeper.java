package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.TimedWork;
import dev.workqueue.store.TimedWorkDriver;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The timed work of one handle, on a daemon thread of its own
 * ({@code workqueue-<name>-leases}), as core's {@link TimedWork} does it, with this class
 * as its driver: every third of the lease it renews every lease the handle holds in one
 * statement, on the lease rows only ({@link LeaseRenewal}): a renewal never waits for an
 * item row that an application or an operator locks; every tick (the shorter of that and
 * the poll interval) it queues again the items whose lease ran out, and takes or keeps
 * the role of reporting the shared gauges (two statements); at once when woken, it hands
 * back what the handle could not (failed hand-backs, claims whose answer was lost).
 * <p>
 * While it backs off (up to a third of the lease on a read-only database), only a
 * shutdown wakes it early. Once the handle is shut down and holds nothing, it gives the
 * reporter role up, closes the handle's notices and table keeper, and ends.
 * <p>
 * Its fields are the thread's own (the figures others read are the {@link TimedWork}'s);
 * the other parts of the handle wake it through its {@link Alarm}.
 */
final class LeaseKeeper implements Runnable, TimedWorkDriver<PostgresLease, Reason> {

	private static final System.Logger logger = System.getLogger(LeaseKeeper.class.getName());

	/** Most expired leases one statement queues again. */
	private static final int REAP_BATCH = 500;

	private final QueueDatabase database;

	private final QueueSql sql;

	private final LeaseRenewal renewal;

	private final ReleaseStatements statements;

	private final HandleLifecycle lifecycle;

	private final ReadySignal signal;

	private final Clock clock;

	private final QueueNotices notices;

	private final FinishedRows rows;

	/** Taken exclusively to find the leases of lost claims (see {@link ItemClaims}). */
	private final Lock claims;

	private final String holder;

	private final long tickNanos;

	private final Alarm alarm;

	private final GivenUpExpiry givenUpExpiry;

	private final TimedWork<PostgresLease, Reason> work;

	LeaseKeeper(QueueDatabase database, QueueSql sql, LeaseRenewal renewal, ReleaseStatements statements,
			LeaseBook<?, PostgresLease> book, HandleLifecycle lifecycle, ReadySignal signal, WorkQueueMetrics metrics,
			Clock clock, Alarm alarm, QueueNotices notices, FinishedRows rows, Lock claims, String holder,
			GivenUpBound givenUp, long leaseNanos, long pollIntervalNanos) {
		this.database = database;
		this.sql = sql;
		this.renewal = renewal;
		this.statements = statements;
		this.lifecycle = lifecycle;
		this.signal = signal;
		this.clock = clock;
		this.alarm = alarm;
		this.notices = notices;
		this.rows = rows;
		this.claims = claims;
		this.holder = holder;
		this.givenUpExpiry = new GivenUpExpiry(database, sql, givenUp, clock.nanoTime());
		this.tickNanos = Math.min(leaseNanos / 3, pollIntervalNanos);
		this.work = new TimedWork<>(this, book, lifecycle, metrics, Runnable::run, clock, alarm::ring, logger,
				"Queue '" + database.name() + "'", "Queue '" + database.name() + "' reaches table " + database.table(),
				leaseNanos, this.tickNanos);
	}

	/** Starts the thread. */
	void start() {
		Thread thread = new Thread(this, "workqueue-" + this.database.name() + "-leases");
		thread.setDaemon(true);
		thread.start();
	}

	/** The statements that end leases, for tests. */
	ReleaseStatements statements() {
		return this.statements;
	}

	/** A claim failed: look for the leases it may have taken, and hand them back. */
	void reconcileSoon() {
		this.work.reconcileSoon();
	}

	@Override
	public void run() {
		long runAtNanos = this.clock.nanoTime();
		while (!this.work.stopped()) {
			sleepUntil(runAtNanos);
			// Backing off, a ring (a failed claim asks for a reconcile) does not cut the
			// wait short, or failing workers would drive this at their speed; a shutdown
			// does.
			while (this.work.backingOff() && !this.lifecycle.quiet() && this.clock.nanoTime() < runAtNanos) {
				sleepUntil(runAtNanos);
			}
			runAtNanos = this.work.run(this.clock.nanoTime());
		}
	}

	/** Waits on the clock until {@code runAtNanos}, or until the alarm rings. */
	private void sleepUntil(long runAtNanos) {
		try {
			this.alarm.sleepUntil(runAtNanos);
		}
		catch (InterruptedException ex) {
			// Nobody interrupts this daemon thread: run once more, as if woken.
		}
	}

	@Override
	public Predicate<PostgresLease> renew(List<PostgresLease> live) {
		Set<Long> renewed = this.renewal.renew(live.stream().mapToLong((lease) -> lease.token).toArray());
		this.rows.finished(renewed.size());
		return (lease) -> renewed.contains(lease.token);
	}

	/**
	 * Queues again the items whose lease ran out, and, when due, deletes the given-up
	 * records past the retention ({@link GivenUpExpiry}): both the upkeep of a tick.
	 */
	@Override
	public Reaped reap(long nowNanos) {
		int reaped = this.database.run("queue again the expired leases of", (connection) -> {
			try (PreparedStatement statement = this.sql.reap.prepare(connection)) {
				this.database.bindNow(this.sql.reap, statement);
				this.sql.reap.setString(statement, "queue", this.database.name());
				this.sql.reap.setInt(statement, "limit", REAP_BATCH);
				return statement.executeUpdate();
			}
		});
		queuedAgain(reaped);
		this.givenUpExpiry.runIfDue(nowNanos);
		return new Reaped(reaped, (reaped == REAP_BATCH) ? nowNanos : Nanos.add(nowNanos, this.tickNanos));
	}

	/** Takes or keeps the role of reporting the shared gauges, for three ticks. */
	@Override
	public boolean report() {
		return this.database.run("take the reporter role of", (connection) -> {
			try (PreparedStatement statement = this.sql.report.prepare(connection)) {
				this.database.bindNow(this.sql.report, statement);
				this.sql.report.setString(statement, "queue", this.database.name());
				this.sql.report.setLong(statement, "lapse", Delays.micros(3 * this.tickNanos));
				this.sql.report.setString(statement, "holder", this.holder);
				try (ResultSet rows = statement.executeQuery()) {
					return rows.next();
				}
			}
		});
	}

	@Override
	public boolean ticksEveryRun() {
		return false;
	}

	/**
	 * Hands the orphans back; those whose rows another transaction locks stay for the
	 * next run while their lease holds. One that ran out is left to a reap (any
	 * instance's, once the lock is gone): so a lock held for ever keeps no shut-down
	 * handle's keeper running.
	 */
	@Override
	public void handBack(List<PostgresLease> orphans) {
		List<PostgresLease> skipped = this.statements.handBackInPlace(orphans);
		orphans.clear();
		long nowNanos = this.clock.nanoTime();
		for (PostgresLease lease : skipped) {
			if (lease.validUntilNanos() - nowNanos > 0) {
				orphans.add(lease);
			}
		}
	}

	/**
	 * Hands back the rows leased to this handle under tokens it does not know: claims
	 * whose answer was lost. No claim runs meanwhile (their leases would not be in the
	 * book yet), and the book still knows the leases whose done is under way, so that a
	 * done that then returns normally is never undone. A row another transaction locks is
	 * skipped, and looked at again by the next run.
	 */
	@Override
	public boolean reconcile(Supplier<List<PostgresLease>> known) {
		if (!this.claims.tryLock()) {
			// A claim is under way, and may wait for a row: this thread renews meanwhile,
			// and its next run looks again (rows it never gets to run out, and come
			// back).
			return false;
		}
		try {
			long[] tokens = known.get().stream().mapToLong((lease) -> lease.token).toArray();
			long[] backAndSkipped = this.database.run("hand back lost claims to", (connection) -> {
				try (PreparedStatement statement = this.sql.reconcile.prepare(connection)) {
					this.database.bindNow(this.sql.reconcile, statement);
					this.sql.reconcile.setString(statement, "queue", this.database.name());
					this.sql.reconcile.setString(statement, "holder", this.holder);
					this.sql.reconcile.setArray(statement, "tokens", QueueDatabase.bigints(connection, tokens));
					try (ResultSet row = statement.executeQuery()) {
						row.next();
						return new long[] { row.getLong(1), row.getLong(2) };
					}
				}
			});
			queuedAgain((int) backAndSkipped[0]);
			return backAndSkipped[1] == 0;
		}
		finally {
			this.claims.unlock();
		}
	}

	/** Rows queued again: counted for the keeper, and looked at here and elsewhere. */
	private void queuedAgain(int rows) {
		if (rows > 0) {
			this.rows.finished(rows);
			this.signal.signal();
			this.notices.queued(0);
		}
	}

	@Override
	public Reason failure(RuntimeException failure) {
		return (failure instanceof PostgresQueueException known) ? known.reason() : Reason.REFUSED;
	}

	@Override
	public String describe(Reason cause) {
		return cause.description();
	}

	/** "unreachable", or the reason itself for a read-only database. */
	@Override
	public String healthFailure(Reason cause) {
		return (cause == Reason.READ_ONLY) ? "read-only: " + cause.description() : "unreachable";
	}

	/** A read-only database renews nothing anyway: up to a third of the lease. */
	@Override
	public boolean renewsNothing(Reason cause) {
		return cause == Reason.READ_ONLY;
	}

	@Override
	public void resign() {
		this.database.run("give up the reporter role of", (connection) -> {
			try (PreparedStatement statement = this.sql.resign.prepare(connection)) {
				this.sql.resign.setString(statement, "queue", this.database.name());
				this.sql.resign.setString(statement, "holder", this.holder);
				return statement.executeUpdate();
			}
		});
	}

	/** Gives up the notices and the table keeper. */
	@Override
	public void release() {
		try {
			this.notices.close();
		}
		finally {
			this.rows.release();
		}
	}

	/**
	 * The policy this keeper drives, which the handle asks for its figures and health.
	 */
	TimedWork<PostgresLease, Reason> work() {
		return this.work;
	}

	/** Whether the work has ended; for tests. */
	boolean stopped() {
		return this.work.stopped();
	}

}
