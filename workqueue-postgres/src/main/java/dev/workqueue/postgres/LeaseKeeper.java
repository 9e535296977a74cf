package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The timed work of one handle, on a daemon thread of its own
 * ({@code workqueue-<name>-leases}): every third of the lease it renews every lease the
 * handle holds in one statement (those claimed ahead too, and those whose {@code done} is
 * under way), on the lease rows only ({@link LeaseRenewal}): a renewal never waits for an
 * item row that an application or an operator locks; every tick (the shorter of that and
 * the poll interval) it queues again the items whose lease ran out, whoever held them,
 * and takes or keeps the role of reporting the shared gauges; at once when woken, it
 * hands back what the handle could not (failed hand-backs, claims whose answer was lost).
 * <p>
 * Failures never end it: it logs once per cause, backs off (never past a renewal; up to a
 * third of the lease on a read-only database), and says when the database answers again;
 * while it backs off, only a shutdown wakes it early. Once the handle is shut down, holds
 * nothing and has no call under way, it gives the reporter role up, closes the handle's
 * notices and table keeper, and ends.
 * <p>
 * Its fields are the thread's own, but for the volatile figures others read; the other
 * parts of the handle wake it through its {@link Alarm}.
 */
final class LeaseKeeper implements Runnable {

	private static final System.Logger logger = System.getLogger(LeaseKeeper.class.getName());

	/** Most expired leases one statement queues again. */
	private static final int REAP_BATCH = 500;

	/** First backoff after a failure; it doubles up to the tick. */
	private static final long MIN_BACKOFF_NANOS = 50_000_000L;

	private final QueueDatabase database;

	private final QueueSql sql;

	private final LeaseRenewal renewal;

	private final LeaseBook<?, PostgresLease> book;

	private final HandleLifecycle lifecycle;

	private final ReadySignal signal;

	/** The queue's hook, guarded. */
	private final WorkQueueMetrics metrics;

	private final Clock clock;

	private final QueueNotices notices;

	private final FinishedRows rows;

	/** Taken exclusively to find the leases of lost claims (see {@link ItemClaims}). */
	private final Lock claims;

	private final String holder;

	private final long leaseNanos;

	private final long renewIntervalNanos;

	private final long tickNanos;

	private final Alarm alarm;

	private final AtomicBoolean reconcile = new AtomicBoolean();

	private final LongAdder stalled = new LongAdder();

	private int failures;

	private volatile Reason failing;

	private volatile boolean reporter;

	private volatile boolean stopped;

	LeaseKeeper(QueueDatabase database, QueueSql sql, LeaseRenewal renewal, LeaseBook<?, PostgresLease> book,
			HandleLifecycle lifecycle, ReadySignal signal, WorkQueueMetrics metrics, Clock clock, Alarm alarm,
			QueueNotices notices, FinishedRows rows, Lock claims, String holder, long leaseNanos,
			long pollIntervalNanos) {
		this.database = database;
		this.sql = sql;
		this.renewal = renewal;
		this.book = book;
		this.lifecycle = lifecycle;
		this.signal = signal;
		this.metrics = metrics;
		this.clock = clock;
		this.alarm = alarm;
		this.notices = notices;
		this.rows = rows;
		this.claims = claims;
		this.holder = holder;
		this.leaseNanos = leaseNanos;
		this.renewIntervalNanos = leaseNanos / 3;
		this.tickNanos = Math.min(this.renewIntervalNanos, pollIntervalNanos);
	}

	/** Starts the thread. */
	void start() {
		Thread thread = new Thread(this, "workqueue-" + this.database.name() + "-leases");
		thread.setDaemon(true);
		thread.start();
	}

	/** A claim failed: look for the leases it may have taken, and hand them back. */
	void reconcileSoon() {
		this.reconcile.set(true);
		this.alarm.ring();
	}

	@Override
	public void run() {
		long nowNanos = this.clock.nanoTime();
		long renewAtNanos = Nanos.add(nowNanos, this.renewIntervalNanos);
		long tickAtNanos = nowNanos;
		long runAtNanos = nowNanos;
		while (true) {
			sleepUntil(runAtNanos);
			// Backing off, a ring (a failed claim asks for a reconcile) does not cut the
			// wait short, or failing workers would drive this at their speed; a shutdown
			// does.
			while (this.failures > 0 && !this.lifecycle.quiet() && this.clock.nanoTime() < runAtNanos) {
				sleepUntil(runAtNanos);
			}
			if (this.lifecycle.quiet() && this.book.isEmpty() && !this.book.hasOrphans()) {
				stop();
				return;
			}
			nowNanos = this.clock.nanoTime();
			try {
				if (nowNanos >= renewAtNanos) {
					renew(nowNanos);
					renewAtNanos = Nanos.add(nowNanos, this.renewIntervalNanos);
				}
				handBackOrphans();
				if (this.reconcile.getAndSet(false)) {
					reconcile();
				}
				if (!this.lifecycle.isShuttingDown() && nowNanos >= tickAtNanos) {
					reap();
					report();
					tickAtNanos = Nanos.add(nowNanos, this.tickNanos);
				}
				recovered();
				runAtNanos = this.lifecycle.isShuttingDown() ? renewAtNanos : Math.min(renewAtNanos, tickAtNanos);
			}
			catch (RuntimeException ex) {
				report(ex);
				this.failures++;
				// Never past a renewal: the leases held must not run out once it answers.
				// A read-only database renews nothing anyway: up to a third of the lease.
				long capNanos = (this.failing == Reason.READ_ONLY) ? Math.max(this.tickNanos, this.renewIntervalNanos)
						: this.tickNanos;
				runAtNanos = Nanos.add(nowNanos,
						Math.min(capNanos, MIN_BACKOFF_NANOS << Math.min(this.failures - 1, 10)));
			}
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

	private void renew(long sentNanos) {
		List<PostgresLease> live = this.book.live();
		if (live.isEmpty()) {
			return;
		}
		Set<Long> renewed = this.renewal.renew(live.stream().mapToLong((lease) -> lease.token).toArray());
		this.rows.finished(renewed.size());
		int lost = this.book.renewed(live, (lease) -> renewed.contains(lease.token),
				Nanos.add(sentNanos, this.leaseNanos));
		if (lost > 0) {
			logger.log(Level.WARNING, "Queue '" + this.database.name() + "' lost the lease of " + lost
					+ " item(s) it holds; another instance may process them now");
		}
	}

	private void reap() {
		int reaped = this.database.run("queue again the expired leases of", (connection) -> {
			try (PreparedStatement statement = this.sql.reap.prepare(connection)) {
				this.database.bindNow(this.sql.reap, statement);
				this.sql.reap.setString(statement, "queue", this.database.name());
				this.sql.reap.setInt(statement, "limit", REAP_BATCH);
				return statement.executeUpdate();
			}
		});
		if (reaped == 0) {
			return;
		}
		this.rows.finished(reaped);
		this.stalled.add(reaped);
		for (int i = 0; i < reaped; i++) {
			this.metrics.stalled();
		}
		logger.log(Level.WARNING, "Queue '" + this.database.name() + "' queued again " + reaped
				+ " item(s) whose lease ran out before their holder was done");
		this.signal.signal();
		this.notices.queued(0);
		if (reaped == REAP_BATCH) {
			this.alarm.ring();
		}
	}

	/** Takes or keeps the role of reporting the shared gauges, for three ticks. */
	private void report() {
		this.reporter = this.database.run("take the reporter role of", (connection) -> {
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

	private void handBackOrphans() {
		List<PostgresLease> orphans = this.book.takeOrphans();
		if (orphans.isEmpty()) {
			return;
		}
		try {
			long[] tokens = orphans.stream().mapToLong((orphan) -> orphan.token).toArray();
			int back = this.database.run("hand items back to", (connection) -> {
				try (PreparedStatement statement = this.sql.handBack.prepare(connection)) {
					this.database.bindNow(this.sql.handBack, statement);
					this.sql.handBack.setString(statement, "queue", this.database.name());
					this.sql.handBack.setArray(statement, "tokens", QueueDatabase.bigints(connection, tokens));
					return statement.executeUpdate();
				}
			});
			orphans.clear();
			if (back > 0) {
				this.rows.finished(back);
				this.signal.signal();
				this.notices.queued(0);
			}
		}
		finally {
			// What is left failed: the next run tries again.
			orphans.forEach(this.book::orphan);
		}
	}

	/**
	 * Hands back the rows leased to this handle under tokens it does not know: claims
	 * whose answer was lost. No claim runs meanwhile (their leases would not be in the
	 * book yet), and the book still knows the leases whose done is under way, so that a
	 * done that then returns normally is never undone.
	 */
	private void reconcile() {
		if (!this.claims.tryLock()) {
			// A claim is under way, and may wait for a row: this thread renews meanwhile,
			// and its next run looks again (rows it never gets to run out, and come
			// back).
			this.reconcile.set(true);
			return;
		}
		try {
			long[] known = this.book.known().stream().mapToLong((lease) -> lease.token).toArray();
			int back = this.database.run("hand back lost claims to", (connection) -> {
				try (PreparedStatement statement = this.sql.reconcile.prepare(connection)) {
					this.database.bindNow(this.sql.reconcile, statement);
					this.sql.reconcile.setString(statement, "queue", this.database.name());
					this.sql.reconcile.setString(statement, "holder", this.holder);
					this.sql.reconcile.setArray(statement, "tokens", QueueDatabase.bigints(connection, known));
					return statement.executeUpdate();
				}
			});
			if (back > 0) {
				this.rows.finished(back);
				this.signal.signal();
				this.notices.queued(0);
			}
		}
		catch (RuntimeException ex) {
			this.reconcile.set(true);
			throw ex;
		}
		finally {
			this.claims.unlock();
		}
	}

	/** Logs a failure once per cause. */
	private void report(RuntimeException ex) {
		Reason reason = (ex instanceof PostgresQueueException failure) ? failure.reason() : Reason.REFUSED;
		if (this.failing != reason) {
			this.failing = reason;
			logger.log(Level.WARNING, ex.getMessage() + "; retrying with backoff until it works", ex);
		}
	}

	private void recovered() {
		Reason was = this.failing;
		this.failures = 0;
		if (was != null) {
			this.failing = null;
			logger.log(Level.INFO, "Queue '" + this.database.name() + "' reaches table " + this.database.table()
					+ " again (after: " + was.description() + ")");
		}
	}

	/** Ends the work: gives up the reporter role, the notices and the table keeper. */
	private void stop() {
		try {
			this.database.run("give up the reporter role of", (connection) -> {
				try (PreparedStatement statement = this.sql.resign.prepare(connection)) {
					this.sql.resign.setString(statement, "queue", this.database.name());
					this.sql.resign.setString(statement, "holder", this.holder);
					return statement.executeUpdate();
				}
			});
		}
		catch (RuntimeException ex) {
			logger.log(Level.DEBUG, "Queue '" + this.database.name() + "' could not give up its reporter role; "
					+ "it lapses by itself", ex);
		}
		finally {
			this.reporter = false;
			try {
				this.notices.close();
			}
			finally {
				this.rows.release();
				this.stopped = true;
			}
		}
	}

	boolean reporter() {
		return this.reporter;
	}

	boolean reachable() {
		return this.failing == null;
	}

	/** Why the last attempt failed, {@code null} if it worked. */
	Reason failing() {
		return this.failing;
	}

	long stalled() {
		return this.stalled.sum();
	}

	/** Whether the work has ended; for tests. */
	boolean stopped() {
		return this.stopped;
	}

}
