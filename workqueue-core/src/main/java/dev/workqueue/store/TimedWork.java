package dev.workqueue.store;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The timed work of one handle of a shared store, one run at a time, whatever thread runs
 * it: every third of the lease it renews every lease the handle holds (those claimed
 * ahead too, and those whose {@code done} is under way); every tick (every run, if the
 * store {@linkplain TimedWorkDriver#ticksEveryRun says so}) it queues again the items
 * whose lease ran out, whoever held them, and takes or keeps the role of reporting the
 * shared gauges; each run hands back what the handle could not (failed hand-backs, those
 * the store left for later, and, once asked, claims whose answer was lost), and the next
 * run comes within a tick while some wait, also once the handle is shut down. The store's
 * calls are its {@link TimedWorkDriver}'s. Part of the shared-store engine, used by store
 * modules; may change before 1.0.
 * <p>
 * Failures never end it: it logs once per cause, backs off (never past a renewal, but
 * where the store renews nothing anyway), and says when the store answers again; only a
 * store gone for good ends it early, said once. The hook's {@code stalled} runs on the
 * given hook executor. Once the handle is shut down, holds nothing and has no call under
 * way, it gives the reporter role up, gives back what it used, and ends; leases it could
 * not hand back by then are tried for one more lease, until they have run out.
 * <p>
 * {@link #run} and {@link #stop} are called by one thread at a time, which owns the
 * schedule and the failure count; the figures others read are volatile or atomic, and
 * {@link #reconcileSoon} may be called by any thread.
 *
 * @param <L> the store's lease
 * @param <R> the store's causes of failure
 */
public final class TimedWork<L extends Lease, R> {

	/** First backoff after a failure; it doubles up to the tick. */
	private static final long MIN_BACKOFF_NANOS = 50_000_000L;

	private final TimedWorkDriver<L, R> driver;

	private final LeaseBook<?, L> book;

	private final HandleLifecycle lifecycle;

	/** The queue's hook, guarded; called on {@link #hooks} only. */
	private final WorkQueueMetrics metrics;

	private final Executor hooks;

	private final Clock clock;

	private final Runnable wake;

	private final Logger logger;

	private final String who;

	private final String reaching;

	private final long leaseNanos;

	private final long renewIntervalNanos;

	private final long tickNanos;

	private final AtomicBoolean reconcile = new AtomicBoolean();

	private final LongAdder stalled = new LongAdder();

	/** Stalled items the hook has not been told of yet. */
	private final AtomicLong stalledUnreported = new AtomicLong();

	private long renewAtNanos;

	private long tickAtNanos;

	private int failures;

	/** Whether the handle was found shut down holding nothing but orphans. */
	private boolean onlyOrphansLeft;

	/** When it was first found so. */
	private long onlyOrphansSinceNanos;

	/** The cause of the failure being reported, {@code null} while all is well. */
	private volatile R failing;

	private volatile boolean reporter;

	private volatile boolean stopped;

	/**
	 * Makes the work; its first renewal is due a third of the lease from now, its first
	 * tick now.
	 * @param driver the store's calls
	 * @param book the handle's leases
	 * @param lifecycle the handle's lifecycle
	 * @param metrics the queue's hook, guarded
	 * @param hooks where the hook is called ({@code Runnable::run}: on the running
	 * thread)
	 * @param clock the handle's clock
	 * @param wake runs the work as soon as its thread can
	 * @param logger the store's logger, which every message of the work goes to
	 * @param who how messages name the handle, such as {@code Queue 'orders'}
	 * @param reaching how a recovery is said, before {@code " again (after: ...)"}
	 * @param leaseNanos the lease
	 * @param tickNanos the longest time between ticks
	 */
	public TimedWork(TimedWorkDriver<L, R> driver, LeaseBook<?, L> book, HandleLifecycle lifecycle,
			WorkQueueMetrics metrics, Executor hooks, Clock clock, Runnable wake, Logger logger, String who,
			String reaching, long leaseNanos, long tickNanos) {
		this.driver = driver;
		this.book = book;
		this.lifecycle = lifecycle;
		this.metrics = metrics;
		this.hooks = hooks;
		this.clock = clock;
		this.wake = wake;
		this.logger = logger;
		this.who = who;
		this.reaching = reaching;
		this.leaseNanos = leaseNanos;
		this.renewIntervalNanos = leaseNanos / 3;
		this.tickNanos = tickNanos;
		long nowNanos = clock.nanoTime();
		this.renewAtNanos = Nanos.add(nowNanos, this.renewIntervalNanos);
		this.tickAtNanos = nowNanos;
	}

	/** A claim failed: look for the leases it may have taken, and hand them back. */
	public void reconcileSoon() {
		this.reconcile.set(true);
		this.wake.run();
	}

	/**
	 * Runs the work due at {@code nowNanos}: ends it if the handle is shut down and holds
	 * nothing (after a last look for the leases of a claim whose answer was lost, if one
	 * is asked for), else renews, hands back, reconciles and ticks as due.
	 * @param nowNanos the clock's reading
	 * @return when the next run is due, on the clock ({@code nowNanos}: at once)
	 */
	public long run(long nowNanos) {
		if (this.lifecycle.quiet() && this.book.isEmpty() && (!this.book.hasOrphans() || orphansRanOut(nowNanos))) {
			lastReconcile();
			stop();
			return nowNanos;
		}
		try {
			if (!this.driver.prepare()) {
				return nowNanos;
			}
			if (nowNanos >= this.renewAtNanos) {
				renew();
				this.renewAtNanos = Nanos.add(nowNanos, this.renewIntervalNanos);
			}
			handBackOrphans();
			if (this.reconcile.getAndSet(false)) {
				reconcile();
			}
			boolean shuttingDown = this.lifecycle.isShuttingDown();
			if (!shuttingDown && (this.driver.ticksEveryRun() || nowNanos >= this.tickAtNanos)) {
				tick(nowNanos);
			}
			recovered();
			long nextNanos = shuttingDown ? this.renewAtNanos : Math.min(this.renewAtNanos, this.tickAtNanos);
			// Hand-backs left for later are tried again within a tick; once shut down no
			// tick is due, and the orphans' alarm rang for the first try only.
			return this.book.hasOrphans() ? Math.min(nextNanos, Nanos.add(nowNanos, this.tickNanos)) : nextNanos;
		}
		catch (RuntimeException ex) {
			R cause = this.driver.failure(ex);
			String gone = this.driver.gone();
			if (gone != null) {
				this.failing = cause;
				this.logger.log(Level.WARNING, gone);
				stop();
				return nowNanos;
			}
			report(cause, ex);
			this.failures++;
			// Never past a renewal: the leases held must not run out once it answers. A
			// store that renews nothing anyway: up to a third of the lease.
			long capNanos = this.driver.renewsNothing(cause) ? Math.max(this.tickNanos, this.renewIntervalNanos)
					: Math.min(this.tickNanos, this.renewIntervalNanos);
			return Nanos.add(nowNanos, Math.min(capNanos, MIN_BACKOFF_NANOS << Math.min(this.failures - 1, 10)));
		}
	}

	/**
	 * Records a failure met outside a run (such as at the start), logged once per cause;
	 * the next run tries again.
	 * @param ex what a call of the store threw
	 */
	public void failed(RuntimeException ex) {
		report(this.driver.failure(ex), ex);
	}

	private void renew() {
		List<L> live = this.book.live();
		if (live.isEmpty()) {
			return;
		}
		// Before the store is asked: the leases it renews run out after this plus a
		// lease.
		long sentNanos = this.clock.nanoTime();
		Predicate<L> renewed = this.driver.renew(live);
		int lost = this.book.renewed(live, renewed, Nanos.add(sentNanos, this.leaseNanos));
		if (lost > 0) {
			this.logger.log(Level.WARNING, this.who + " lost the lease of " + lost
					+ " item(s) it holds; another instance may process them now");
		}
	}

	private void tick(long nowNanos) {
		TimedWorkDriver.Reaped reaped = this.driver.reap(nowNanos);
		if (reaped.count() > 0) {
			this.stalled.add(reaped.count());
			if (this.stalledUnreported.getAndAdd(reaped.count()) == 0) {
				this.hooks.execute(this::reportStalled);
			}
			this.logger.log(Level.WARNING, this.who + " queued again " + reaped.count()
					+ " item(s) whose lease ran out before their holder was done");
		}
		this.reporter = this.driver.report();
		// Only now: a tick that failed half way runs whole again.
		this.tickAtNanos = reaped.nextTickAtNanos();
	}

	/**
	 * Tells the hook of the stalled items counted since it was last told. The tick that
	 * finds the count at zero hands this over; the count is taken whole, so that a tick
	 * adding to it meanwhile either adds before it is taken or hands over another.
	 */
	private void reportStalled() {
		for (long i = this.stalledUnreported.getAndSet(0); i > 0; i--) {
			this.metrics.stalled();
		}
	}

	private void handBackOrphans() {
		List<L> orphans = this.book.takeOrphans();
		if (orphans.isEmpty()) {
			return;
		}
		try {
			this.driver.handBack(orphans);
		}
		finally {
			// What is left failed: the next run tries again.
			orphans.forEach(this.book::orphan);
		}
	}

	/**
	 * Whether a shut-down handle holding nothing but leases it could not hand back has
	 * tried for a whole lease: they are not renewed, so they have run out, and any
	 * handle's reap queues their items again. Drops them then, said once, so that a store
	 * that refuses for good (a user without grants) does not keep the work alive.
	 */
	private boolean orphansRanOut(long nowNanos) {
		if (!this.onlyOrphansLeft) {
			this.onlyOrphansLeft = true;
			this.onlyOrphansSinceNanos = nowNanos;
			return false;
		}
		if (nowNanos - this.onlyOrphansSinceNanos < this.leaseNanos) {
			return false;
		}
		int dropped = this.book.takeOrphans().size();
		this.logger.log(Level.WARNING, this.who + " ended without handing back " + dropped
				+ " lease(s); they have run out, and the reap queues their items again");
		return true;
	}

	/**
	 * A reconcile asked for and not run yet, tried once as the work ends: such leases are
	 * in no book, and only the reconcile finds them. One try only: if the store does not
	 * answer, they run out, and any handle's reap queues their items again.
	 */
	private void lastReconcile() {
		if (this.reconcile.getAndSet(false)) {
			try {
				this.driver.reconcile(this.book::known);
			}
			catch (RuntimeException ex) {
				this.logger.log(Level.DEBUG, this.who
						+ " could not look for the leases of a lost claim as it ended; they run out by themselves", ex);
			}
		}
	}

	private void reconcile() {
		boolean looked = false;
		try {
			looked = this.driver.reconcile(this.book::known);
		}
		finally {
			if (!looked) {
				this.reconcile.set(true);
			}
		}
	}

	/** Logs a failure once per cause. */
	private void report(R cause, RuntimeException ex) {
		if (this.failing != cause) {
			this.failing = cause;
			this.logger.log(Level.WARNING, ex.getMessage() + "; retrying with backoff until it works", ex);
		}
	}

	private void recovered() {
		R was = this.failing;
		this.failures = 0;
		if (was != null) {
			this.failing = null;
			this.logger.log(Level.INFO, this.reaching + " again (after: " + this.driver.describe(was) + ")");
		}
	}

	/** Ends the work: gives up the reporter role and what the work used. */
	public void stop() {
		try {
			this.driver.resign();
		}
		catch (RuntimeException ex) {
			this.logger.log(Level.DEBUG, this.who + " could not give up its reporter role; it lapses by itself", ex);
		}
		finally {
			this.reporter = false;
			try {
				this.driver.release();
			}
			finally {
				this.stopped = true;
			}
		}
	}

	/**
	 * Whether the last run failed, so that the next waits its backoff out.
	 * @return whether it backs off
	 */
	public boolean backingOff() {
		return this.failures > 0;
	}

	/**
	 * Whether this handle reports the shared gauges.
	 * @return whether it has the role
	 */
	public boolean reporter() {
		return this.reporter;
	}

	/**
	 * Why the last run failed.
	 * @return its cause, {@code null} if it worked
	 */
	public R failing() {
		return this.failing;
	}

	/**
	 * What health checks say of the store while the last run failed.
	 * @return the driver's {@linkplain TimedWorkDriver#healthFailure answer} for the
	 * cause, {@code null} if the last run worked
	 */
	public String failure() {
		R cause = this.failing;
		return (cause != null) ? this.driver.healthFailure(cause) : null;
	}

	/**
	 * How many items the ticks of this handle queued again.
	 * @return the count since the start
	 */
	public long stalled() {
		return this.stalled.sum();
	}

	/**
	 * Whether the work has ended.
	 * @return whether it stopped
	 */
	public boolean stopped() {
		return this.stopped;
	}

}
