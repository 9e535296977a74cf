package dev.workqueue.time;

import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The only source of time in workqueue: a monotonic nanosecond counter, and the one way
 * to wait for a point on it.
 * <p>
 * Readings are comparable only with other readings of the same clock. Every time-based
 * type takes a {@code Clock} so that tests can drive it with a {@link FakeClock} instead
 * of real time. Waiting goes through {@link #awaitUntil}, which lets a fake clock wake
 * waiters when it is stepped past their deadline.
 * <p>
 * Implementations are thread-safe. Only {@link #nanoTime()} is abstract, so a lambda is a
 * valid clock; such a clock waits in real time.
 */
@FunctionalInterface
public interface Clock {

	/**
	 * Returns the current reading in nanoseconds. The origin is arbitrary but fixed;
	 * readings never decrease.
	 * @return the current reading
	 */
	long nanoTime();

	/**
	 * Waits on {@code condition} until it is signalled, the thread is interrupted, or
	 * this clock reads at or past {@code deadlineNanos}, whichever comes first. The
	 * caller holds {@code lock}, the lock {@code condition} belongs to. Like
	 * {@link Condition#awaitNanos(long)} this may return early or spuriously: callers
	 * wait in a loop that re-checks their state and the clock.
	 * @param lock the lock held by the caller, owner of {@code condition}
	 * @param condition the condition to wait on
	 * @param deadlineNanos the reading of this clock at which to stop waiting
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	default void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
		long nowNanos = nanoTime();
		if (nowNanos < deadlineNanos) {
			// Compared first: from a negative reading a far deadline is further than a
			// long holds, and the difference would overflow to a past one.
			long remainingNanos = deadlineNanos - nowNanos;
			condition.awaitNanos((remainingNanos > 0) ? remainingNanos : Long.MAX_VALUE);
		}
	}

	/**
	 * Blocks the calling thread until this clock reads at or past {@code deadlineNanos}.
	 * @param deadlineNanos the reading to wait for
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	default void sleepUntil(long deadlineNanos) throws InterruptedException {
		Lock lock = new ReentrantLock();
		Condition never = lock.newCondition();
		lock.lock();
		try {
			while (nanoTime() < deadlineNanos) {
				awaitUntil(lock, never, deadlineNanos);
			}
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Returns the wall-clock time of this clock's present reading, for an operator's view
	 * (when an item falls due, when it was given up): nothing measures or waits on it. A
	 * reading {@code r} stands at {@code instant()} plus {@code r - nanoTime()}. The
	 * default reads the system's wall clock.
	 * @return the time now
	 */
	default Instant instant() {
		return Instant.now();
	}

	/**
	 * Returns the clock backed by {@link System#nanoTime()}. Its readings start near zero
	 * when the class is loaded, so deadlines computed with {@link Nanos#add} stay far
	 * from overflow.
	 * @return the system clock
	 */
	static Clock system() {
		return SystemClock.INSTANCE;
	}

}
