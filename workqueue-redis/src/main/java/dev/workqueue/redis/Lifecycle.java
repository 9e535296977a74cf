package dev.workqueue.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A queue handle's shutdown: the flag, the calls under way, and the waits of
 * {@code shutDownWithDrain}. The handle gives its connections back only once it is
 * {@link #finished}: shut down, nothing held, and no call under way, so that a call that
 * raced the shutdown never finds its connection closed.
 * <p>
 * Thread-safe. A call counts itself in before it reads the flag, and the handle reads the
 * count after setting it: one of the two sees the other.
 */
final class Lifecycle {

	private final AtomicInteger calls = new AtomicInteger();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	/** Called when the handle may have become quiet: the timed work then looks. */
	private final Runnable onQuiet;

	private volatile boolean shuttingDown;

	/**
	 * Calls of {@link #shutDown}, so that a later one releases a drain. Guarded by lock.
	 */
	private int shutDowns;

	Lifecycle(Runnable onQuiet) {
		this.onQuiet = onQuiet;
	}

	/**
	 * Counts in a call that only a running handle makes (an add, a get).
	 * @return {@code false}, counting nothing, once shut down
	 */
	boolean enter() {
		this.calls.incrementAndGet();
		if (this.shuttingDown) {
			exit();
			return false;
		}
		return true;
	}

	/** Counts in a call that a shut-down handle still makes (done, hand back). */
	void enterAlways() {
		this.calls.incrementAndGet();
	}

	void exit() {
		if (this.calls.decrementAndGet() == 0 && this.shuttingDown) {
			changed();
			this.onQuiet.run();
		}
	}

	boolean isShuttingDown() {
		return this.shuttingDown;
	}

	/** Shuts down; releases every {@code shutDownWithDrain} waiting. */
	void shutDown() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			this.shutDowns++;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Shuts down for a drain, without releasing other drains (as client-go, a second
	 * drain waits too).
	 * @return what {@link #awaitDrained} waits against: the plain shutdowns so far
	 */
	int shutDownForDrain() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			return this.shutDowns;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until {@code drained} holds, or a plain {@link #shutDown} comes after
	 * {@link #shutDownForDrain}. An interrupt ends the wait, with the interrupt status
	 * kept.
	 * @param shutDowns what {@link #shutDownForDrain} returned
	 * @param drained whether nothing is held any more
	 */
	void awaitDrained(int shutDowns, BooleanSupplier drained) {
		this.lock.lock();
		try {
			while (!drained.getAsBoolean() && this.shutDowns == shutDowns) {
				this.changed.await();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Something a waiting drain looks at changed (an item was done). */
	void changed() {
		this.lock.lock();
		try {
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Whether the handle is shut down with no call under way. */
	boolean quiet() {
		return this.shuttingDown && this.calls.get() == 0;
	}

}
