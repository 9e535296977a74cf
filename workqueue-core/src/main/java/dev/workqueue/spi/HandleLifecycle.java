package dev.workqueue.spi;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The shutdown of one handle on a shared queue (the Redis and PostgreSQL backends'): the
 * flag, the calls under way, and the waits of {@code shutDownWithDrain}. A handle gives
 * back what it shares (connections, timers, notices) only once it is {@link #quiet}: shut
 * down with no call under way, so that a call racing the shutdown finds everything still
 * open.
 * <p>
 * Thread-safe. A call counts itself in before it reads the flag, and {@link #quiet} reads
 * the count after the flag is set: one of the two sees the other. {@code lock} guards
 * {@code shutDowns} and the waits.
 */
public final class HandleLifecycle {

	private final AtomicInteger calls = new AtomicInteger();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	/** Told when the handle may have become quiet (its timed work then looks). */
	private final Runnable onQuiet;

	private volatile boolean shuttingDown;

	/** Plain shutdowns so far: a later one releases a drain. Guarded by lock. */
	private int shutDowns;

	/**
	 * Creates the lifecycle of a running handle.
	 * @param onQuiet told, on the thread that made it so, when the handle may have become
	 * {@link #quiet}; it must not block
	 */
	public HandleLifecycle(Runnable onQuiet) {
		this.onQuiet = onQuiet;
	}

	/**
	 * Counts in a call only a running handle makes (an add, a take).
	 * @return {@code false}, counting nothing, once shut down
	 */
	public boolean enter() {
		this.calls.incrementAndGet();
		if (this.shuttingDown) {
			exit();
			return false;
		}
		return true;
	}

	/** Counts in a call a shut-down handle still makes (a done, a hand-back, a read). */
	public void enterAlways() {
		this.calls.incrementAndGet();
	}

	/** Counts a call out. */
	public void exit() {
		if (this.calls.decrementAndGet() == 0 && this.shuttingDown) {
			changed();
			this.onQuiet.run();
		}
	}

	/**
	 * Whether the handle is shut down.
	 * @return whether it is
	 */
	public boolean isShuttingDown() {
		return this.shuttingDown;
	}

	/** Shuts down and releases every drain that waits. */
	public void shutDown() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			this.shutDowns++;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		this.onQuiet.run();
	}

	/**
	 * Shuts down for a drain, releasing no other drain (a second drain waits too, as in
	 * client-go).
	 * @return what {@link #awaitDrained} compares with: the plain shutdowns so far
	 */
	public int shutDownForDrain() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			return this.shutDowns;
		}
		finally {
			this.lock.unlock();
			this.onQuiet.run();
		}
	}

	/**
	 * Waits until no call is under way and {@code drained} holds, or a plain
	 * {@link #shutDown} comes; an interrupt ends the wait with the interrupt status kept.
	 * A call under way may still hold what {@code drained} cannot see yet (a claim
	 * answered, its items not booked).
	 * @param shutDowns what {@link #shutDownForDrain} returned
	 * @param drained whether the handle holds nothing any more
	 */
	public void awaitDrained(int shutDowns, BooleanSupplier drained) {
		this.lock.lock();
		try {
			while (!(this.calls.get() == 0 && drained.getAsBoolean()) && this.shutDowns == shutDowns) {
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

	/** Something a drain looks at changed: the handle may hold nothing now. */
	public void changed() {
		this.lock.lock();
		try {
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Whether the handle is shut down and no call is under way.
	 * @return whether it is quiet
	 */
	public boolean quiet() {
		return this.shuttingDown && this.calls.get() == 0;
	}

}
