package dev.workqueue.time;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Clock} that moves only when told to, for deterministic tests. It starts at
 * zero, which {@link #instant()} places at the epoch.
 * <p>
 * {@link #step(Duration)} advances the reading and wakes every thread waiting in
 * {@link #awaitUntil} (directly or through a queue, limiter or timer built on this clock)
 * whose deadline has been reached. {@link #hasWaiters()} tells a test that a thread has
 * parked on the clock, so it can step without sleeping (as kubernetes/utils'
 * {@code FakeClock.HasWaiters}).
 * <p>
 * Thread-safe. Waiters are tracked under this object's monitor; signals are sent after
 * the monitor is released, holding only the waiter's own lock, so a step never deadlocks
 * with a waiter.
 */
public final class FakeClock implements Clock {

	private volatile long nowNanos;

	/** Threads parked in {@link #awaitUntil}; guarded by {@code this}. */
	private final List<Waiter> waiters = new ArrayList<>();

	/**
	 * Creates a clock that reads zero.
	 */
	public FakeClock() {
	}

	@Override
	public long nanoTime() {
		return this.nowNanos;
	}

	/**
	 * Advances this clock by {@code duration} and wakes every waiter whose deadline is
	 * now reached.
	 * @param duration how far to advance, zero or positive
	 * @throws IllegalArgumentException if {@code duration} is negative
	 */
	public void step(Duration duration) {
		Objects.requireNonNull(duration, "duration");
		if (duration.isNegative()) {
			throw new IllegalArgumentException("duration must not be negative, was " + duration);
		}
		List<Waiter> due = new ArrayList<>();
		synchronized (this) {
			this.nowNanos = Nanos.add(this.nowNanos, Nanos.of(duration));
			for (Iterator<Waiter> it = this.waiters.iterator(); it.hasNext();) {
				Waiter waiter = it.next();
				if (waiter.deadlineNanos <= this.nowNanos) {
					due.add(waiter);
					it.remove();
				}
			}
		}
		due.forEach(Waiter::wake);
	}

	/**
	 * Returns whether any thread is waiting on this clock for a deadline not yet reached.
	 * @return {@code true} if a thread is waiting
	 */
	public synchronized boolean hasWaiters() {
		return !this.waiters.isEmpty();
	}

	/**
	 * Returns how many threads are waiting on this clock for a deadline not yet reached.
	 * @return the number of waiting threads
	 */
	public synchronized int numWaiters() {
		return this.waiters.size();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The epoch plus this clock's reading, so that views built on it are exact too.
	 */
	@Override
	public Instant instant() {
		return Instant.EPOCH.plusNanos(this.nowNanos);
	}

	@Override
	public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
		Waiter waiter = new Waiter(lock, condition, deadlineNanos);
		synchronized (this) {
			if (this.nowNanos >= deadlineNanos) {
				return;
			}
			// Registered while the caller still holds its lock: a step that sees this
			// waiter must take that lock to signal, which it gets only once await()
			// below has released it, so the wake-up cannot be missed.
			this.waiters.add(waiter);
		}
		try {
			condition.await();
		}
		finally {
			synchronized (this) {
				this.waiters.remove(waiter);
			}
		}
	}

	@Override
	public String toString() {
		return "FakeClock[" + Duration.ofNanos(this.nowNanos) + "]";
	}

	/** A thread parked in {@link #awaitUntil}; identity equality on purpose. */
	private static final class Waiter {

		private final Lock lock;

		private final Condition condition;

		private final long deadlineNanos;

		Waiter(Lock lock, Condition condition, long deadlineNanos) {
			this.lock = lock;
			this.condition = condition;
			this.deadlineNanos = deadlineNanos;
		}

		void wake() {
			this.lock.lock();
			try {
				this.condition.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}

	}

}
