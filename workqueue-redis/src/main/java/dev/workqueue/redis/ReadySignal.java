package dev.workqueue.redis;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.time.Clock;

/**
 * How a handle's consumers wait for ready items without asking Redis in a loop. Each
 * notice (an item was queued, on pub/sub; another consumer found more) grants one look: a
 * permit, which one waiting consumer takes before it asks Redis again, so that a stream
 * of notices wakes one consumer each, never all of them. A notice that comes while no
 * consumer waits is kept for the next one to wait, so none is missed. Each notice also
 * bumps an epoch: a consumer that found the ready list empty marks that epoch empty, and
 * until the next notice the others wait without asking Redis, so many idle consumers cost
 * one script, not one each; the permits of the notices before that look are spent by it.
 * <p>
 * On a standalone Redis the notices of items queued come from the queue's wake list
 * instead, through the client's {@link WakeWatch}, which pops each for one waiting
 * consumer of all the instances.
 * <p>
 * A consumer that polls for a {@link dev.workqueue.spi.Poller} also stops waiting when
 * its poller's {@link Wakeup} comes, without an interrupt; the other consumers wait on.
 * <p>
 * Thread-safe: {@code lock} guards the epochs and the permits.
 */
final class ReadySignal {

	/**
	 * One poller's sticky wake-up: it ends that poller's wait under way, or its next one
	 * if none is. Set before the lock is taken to signal, and read by the waiter under
	 * the lock before each wait, so the waiter sees it or is signalled after it.
	 */
	static final class Wakeup {

		private final AtomicBoolean pending = new AtomicBoolean();

		/**
		 * Uses the wake-up up, if one is pending.
		 * @return whether one was
		 */
		boolean take() {
			return this.pending.get() && this.pending.compareAndSet(true, false);
		}

	}

	/** More permits than consumers ever wait: the rest would find the list empty. */
	private static final int MAX_PERMITS = 1024;

	private final Clock clock;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition notice = this.lock.newCondition();

	private long epoch;

	private long emptyAtEpoch = -1;

	private int permits;

	/** Set by {@link #signalAll()}: no consumer waits any more. */
	private boolean released;

	/** Consumers waiting in {@link #awaitNotice}; written under the lock. */
	private volatile int waiting;

	/**
	 * Told when the first consumer starts waiting, once Redis hands the wake-ups out
	 * ({@link WakeWatch}); {@code null} while the notices come by pub/sub.
	 */
	private volatile Runnable firstWaiter;

	ReadySignal(Clock clock) {
		this.clock = clock;
	}

	/** The epoch now; a consumer looks in Redis, then waits for a notice. */
	long epoch() {
		this.lock.lock();
		try {
			return this.epoch;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Whether a consumer found the list empty at this epoch, and no notice came since.
	 */
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
	 * Records that the ready list was empty at epoch {@code seen}: if no notice came
	 * since, the look answered every notice before it.
	 */
	void markEmpty(long seen) {
		this.lock.lock();
		try {
			if (this.epoch == seen) {
				this.emptyAtEpoch = seen;
				this.permits = 0;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** A notice: one waiting consumer looks again. Called on the event loop too. */
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
	 * A notice that more may be ready, unless one is pending: one consumer looking again
	 * is enough, and notices piled up while the consumers were busy would each cost a
	 * look that finds nothing.
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

	/**
	 * From now on Redis hands the wake-ups out, one waiting consumer of all the instances
	 * each ({@link WakeWatch}): {@code firstWaiter} is told, under this signal's lock,
	 * whenever a consumer starts waiting while none did, and must not block;
	 * {@code null}: the notices come by pub/sub again.
	 * @param firstWaiter what to tell, or {@code null}
	 */
	void handOffInRedis(Runnable firstWaiter) {
		this.firstWaiter = firstWaiter;
	}

	/**
	 * Whether Redis hands the wake-ups out: the pub/sub notices are not for this signal.
	 */
	boolean handedOffInRedis() {
		return this.firstWaiter != null;
	}

	/**
	 * A get leased all it asked for: more may be ready, and another consumer should look.
	 * Where Redis hands the wake-ups out, the get's script armed the wake list for the
	 * next waiting consumer of all the instances; else a local one looks
	 * ({@link #signalUnlessPending}).
	 */
	void moreMayBeReady() {
		if (this.firstWaiter == null) {
			signalUnlessPending();
		}
	}

	/** Every waiting consumer, and every one that comes, stops waiting (shutdown). */
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
	 * How many consumers wait for a notice now: a get leases an item for each of them
	 * too.
	 */
	int waiting() {
		return this.waiting;
	}

	/**
	 * Wakes a poller: its wait under way ends, or its next one. The other waiting
	 * consumers wake too, find nothing for them, and wait on: wake-ups are rare (a pause,
	 * a resize, a stop of the worker container).
	 * @param wakeup the poller's wake-up
	 */
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
	 * Waits for a notice and takes its permit, at most until {@code deadlineNanos} when
	 * {@code bounded}, and only until {@code wakeup} comes when given (it is then used
	 * up).
	 * @param wakeup the poller's wake-up, or {@code null} for a plain get or poll
	 * @return {@code false} on timeout or wake-up
	 */
	boolean awaitNotice(boolean bounded, long deadlineNanos, Wakeup wakeup) throws InterruptedException {
		this.lock.lock();
		this.waiting++;
		try {
			Runnable first = this.firstWaiter;
			if (this.waiting == 1 && first != null) {
				first.run();
			}
			while (this.permits == 0 && !this.released) {
				if ((bounded && this.clock.nanoTime() >= deadlineNanos) || (wakeup != null && wakeup.take())) {
					return false;
				}
				if (bounded) {
					this.clock.awaitUntil(this.lock, this.notice, deadlineNanos);
				}
				else {
					this.notice.await();
				}
			}
			if (this.permits > 0) {
				this.permits--;
			}
			return true;
		}
		finally {
			this.waiting--;
			this.lock.unlock();
		}
	}

}
