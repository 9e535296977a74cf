package dev.workqueue.postgres;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a handle's consumers wait for ready items without asking the database in a loop.
 * <p>
 * <b>Notices.</b> Each notice (a local add committed, a {@code NOTIFY} came, a claim left
 * items for others) grants one look: a permit that one waiting consumer takes before it
 * claims again, so that a stream of notices wakes one consumer each, not all. A notice
 * that comes while nobody waits is kept for the next consumer. Each notice bumps an
 * epoch: a consumer that found nothing marks that epoch empty, and until the next notice
 * the other consumers wait without asking, so many idle consumers cost one look, not one
 * each.
 * <p>
 * <b>Timed looks.</b> One waiting consumer at a time, the leader (as in the JDK's
 * {@code DelayQueue}), also waits for the next timed look: the earliest known due time of
 * a delayed item (from claims, local adds and notices), or a poll interval after the last
 * look found nothing, whichever is first. When it leaves, the next waiter takes the lead.
 * <p>
 * A poller's consumer also stops waiting when its {@link Wakeup} comes.
 * <p>
 * Thread-safe: {@code lock} guards every field but {@code waiting}, which it writes.
 */
final class ReadySignal {

	/**
	 * One poller's sticky wake-up: it ends that poller's wait under way, or its next one.
	 * Set before the lock is taken to signal, and read under the lock before each wait.
	 */
	static final class Wakeup {

		private final AtomicBoolean pending = new AtomicBoolean();

		/** Uses the wake-up, if one is pending. */
		boolean take() {
			return this.pending.get() && this.pending.compareAndSet(true, false);
		}

	}

	/** More permits than consumers ever wait: the rest would find nothing. */
	private static final int MAX_PERMITS = 1024;

	private final Clock clock;

	private final long pollIntervalNanos;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition notice = this.lock.newCondition();

	private long epoch;

	private long emptyAtEpoch = -1;

	private int permits;

	private boolean released;

	/** The waiter that waits for the next timed look, or {@code null}. */
	private Thread leader;

	/** When the leader looks on its own. */
	private long nextLookNanos;

	/** The earliest due time heard of since it passed, {@code Long.MAX_VALUE} if none. */
	private long notedDueNanos = Long.MAX_VALUE;

	/** The database's clock minus this clock, in µs; {@code null} until measured. */
	private volatile Long offsetMicros;

	private volatile int waiting;

	/**
	 * @param clock the handle's clock
	 * @param pollIntervalNanos how long the leader waits after a look found nothing
	 * @param offsetMicros the database's clock minus this clock in µs if known (a given
	 * clock's {@link ClockAnchor}), else {@code null}: the first claim measures it
	 */
	ReadySignal(Clock clock, long pollIntervalNanos, Long offsetMicros) {
		this.clock = clock;
		this.pollIntervalNanos = pollIntervalNanos;
		this.offsetMicros = offsetMicros;
	}

	/** The epoch now: a consumer reads it before it looks. */
	long epoch() {
		this.lock.lock();
		try {
			return this.epoch;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Whether a look found nothing at this epoch, and no notice came since. */
	boolean knownEmpty(long seen) {
		this.lock.lock();
		try {
			return seen == this.emptyAtEpoch;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A look that began at epoch {@code seen} found nothing ready: if no notice came
	 * since, it answered every notice before it; the leader looks again at the earliest
	 * due time it reported or a poll interval from now.
	 * @param seen the epoch when the look began
	 * @param dueInNanos how long until the earliest waiting item is due; negative if none
	 */
	void lookedEmpty(long seen, long dueInNanos) {
		this.lock.lock();
		try {
			if (this.epoch == seen) {
				this.emptyAtEpoch = seen;
				this.permits = 0;
			}
			long nowNanos = this.clock.nanoTime();
			if (this.notedDueNanos <= nowNanos) {
				this.notedDueNanos = Long.MAX_VALUE;
			}
			long next = Math.min(Nanos.add(nowNanos, this.pollIntervalNanos), this.notedDueNanos);
			if (dueInNanos >= 0) {
				next = Math.min(next, Nanos.add(nowNanos, dueInNanos));
			}
			boolean sooner = next < this.nextLookNanos;
			this.nextLookNanos = next;
			if (sooner) {
				// The leader waits for the old time: it looks sooner now.
				this.notice.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A look found items and asked for no more than it got: the leader need not look
	 * before the earliest due time it reported or a poll interval from now.
	 * @param dueInNanos how long until the earliest waiting item is due; negative if none
	 */
	void lookedFull(long dueInNanos) {
		if (dueInNanos >= 0) {
			dueIn(dueInNanos);
		}
	}

	/** A notice: one waiting consumer looks. Never blocks for long. */
	void signal() {
		this.lock.lock();
		try {
			this.epoch++;
			this.permits = Math.min(MAX_PERMITS, this.permits + 1);
			this.notice.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A notice that more may be ready, unless one is pending: one consumer looking is
	 * enough.
	 */
	void signalUnlessPending() {
		this.lock.lock();
		try {
			if (this.permits == 0) {
				this.epoch++;
				this.permits = 1;
				this.notice.signal();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Every waiting consumer, and every one to come, stops waiting: shutdown. */
	void signalAll() {
		this.lock.lock();
		try {
			this.epoch++;
			this.released = true;
			this.notice.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A delayed item falls due in {@code dueInNanos}: the leader looks then, at the
	 * latest.
	 * @param dueInNanos how long until it is due, from now on this signal's clock
	 */
	void dueIn(long dueInNanos) {
		this.lock.lock();
		try {
			long dueNanos = Nanos.add(this.clock.nanoTime(), Math.max(0, dueInNanos));
			if (this.notedDueNanos <= this.clock.nanoTime() || dueNanos < this.notedDueNanos) {
				this.notedDueNanos = dueNanos;
			}
			if (dueNanos < this.nextLookNanos) {
				this.nextLookNanos = dueNanos;
				this.notice.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Records the database's time at a moment of this clock, so that due times in the
	 * database's clock (notices) can be waited for here.
	 * @param databaseNowMicros the database's time, µs since the epoch
	 * @param localNanos this clock's reading at about that moment (after it)
	 */
	void measured(long databaseNowMicros, long localNanos) {
		this.offsetMicros = databaseNowMicros - Math.floorDiv(localNanos, 1000);
	}

	/**
	 * Estimates the database's time a delay from now, for the payload of a notice sent
	 * before the statement tells the exact time.
	 * @param delayMicros the delay
	 * @return ms since the epoch on the database's clock, or 0 (ready now) if the offset
	 * is not known yet
	 */
	long databaseMillis(long delayMicros) {
		Long offset = this.offsetMicros;
		if (offset == null) {
			return 0;
		}
		return Math.max(1, Math.floorDiv(Math.floorDiv(this.clock.nanoTime(), 1000) + offset + delayMicros, 1000));
	}

	/**
	 * A notice came that an item was queued, ready at {@code dueEpochMillis} (0: now).
	 * @param dueEpochMillis when it is ready, on the database's clock
	 */
	void notice(long dueEpochMillis) {
		Long offset = this.offsetMicros;
		if (dueEpochMillis <= 0 || offset == null) {
			// Unknown offset: a look now learns the due time from the claim's answer.
			signal();
			return;
		}
		long dueLocalMicros = dueEpochMillis * 1000 - offset;
		long nowMicros = Math.floorDiv(this.clock.nanoTime(), 1000);
		if (dueLocalMicros <= nowMicros) {
			signal();
		}
		else {
			dueIn((dueLocalMicros - nowMicros) * 1000);
		}
	}

	/** How many consumers wait now: a claim leases an item for each of them too. */
	int waiting() {
		return this.waiting;
	}

	/** Wakes a poller: its wait under way ends, or its next one. */
	void wake(Wakeup wakeup) {
		wakeup.pending.set(true);
		this.lock.lock();
		try {
			this.notice.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits for a reason to look: a notice (its permit is taken), the leader's timed
	 * look, or shutdown; at most until {@code deadlineNanos} when {@code bounded}, and
	 * only until {@code wakeup} comes when given (it is then used up).
	 * @param bounded whether the wait is bounded
	 * @param deadlineNanos the bound, on the clock
	 * @param wakeup the poller's wake-up, or {@code null}
	 * @return {@code false} on timeout or wake-up
	 * @throws InterruptedException if interrupted while waiting
	 */
	boolean awaitNotice(boolean bounded, long deadlineNanos, Wakeup wakeup) throws InterruptedException {
		Thread me = Thread.currentThread();
		this.lock.lock();
		this.waiting++;
		try {
			while (true) {
				if (this.permits > 0) {
					this.permits--;
					return true;
				}
				if (this.released) {
					return true;
				}
				if (wakeup != null && wakeup.take()) {
					return false;
				}
				long nowNanos = this.clock.nanoTime();
				if (bounded && nowNanos >= deadlineNanos) {
					return false;
				}
				if (this.leader == null) {
					this.leader = me;
				}
				if (this.leader == me) {
					if (nowNanos >= this.nextLookNanos) {
						// Until this look reports, the next leader waits a poll interval.
						this.nextLookNanos = Nanos.add(nowNanos, this.pollIntervalNanos);
						return true;
					}
					this.clock.awaitUntil(this.lock, this.notice,
							bounded ? Math.min(deadlineNanos, this.nextLookNanos) : this.nextLookNanos);
				}
				else if (bounded) {
					this.clock.awaitUntil(this.lock, this.notice, deadlineNanos);
				}
				else {
					this.notice.await();
				}
			}
		}
		finally {
			if (this.leader == me) {
				this.leader = null;
				// Another waiter takes the lead.
				this.notice.signal();
			}
			this.waiting--;
			this.lock.unlock();
		}
	}

}
