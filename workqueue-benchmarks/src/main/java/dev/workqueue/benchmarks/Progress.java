package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A count of items processed, by every worker of every JVM, that threads can wait on
 * without spinning: whoever adds past the lowest target a waiter set wakes the waiters. A
 * worker's failure is kept and rethrown to the waiters, so that a broken contender fails
 * the run instead of hanging it.
 */
final class Progress {

	private final AtomicLong count = new AtomicLong();

	private final Object lock = new Object();

	/** The lowest target a waiter waits for; {@code Long.MAX_VALUE} when none waits. */
	private volatile long wakeAt = Long.MAX_VALUE;

	private volatile Throwable failure;

	long count() {
		return this.count.get();
	}

	void add(long items) {
		if (this.count.addAndGet(items) >= this.wakeAt) {
			wakeAll();
		}
	}

	void fail(Throwable failure) {
		if (this.failure == null) {
			this.failure = failure;
		}
		wakeAll();
	}

	/**
	 * Waits until the count reaches {@code target}.
	 * @param target the count to wait for
	 * @param timeoutNanos how long to wait at most
	 * @return whether the count reached it
	 * @throws InterruptedException if interrupted
	 * @throws IllegalStateException if a worker failed
	 */
	boolean awaitAtLeast(long target, long timeoutNanos) throws InterruptedException {
		long deadlineNanos = System.nanoTime() + timeoutNanos;
		synchronized (this.lock) {
			while (true) {
				if (this.failure != null) {
					throw new IllegalStateException("a worker failed: " + this.failure, this.failure);
				}
				if (target < this.wakeAt) {
					this.wakeAt = target;
				}
				if (this.count.get() >= target) {
					return true;
				}
				long leftNanos = deadlineNanos - System.nanoTime();
				if (leftNanos <= 0) {
					return false;
				}
				TimeUnit.NANOSECONDS.timedWait(this.lock, Math.min(leftNanos, TimeUnit.MILLISECONDS.toNanos(10)));
			}
		}
	}

	private void wakeAll() {
		synchronized (this.lock) {
			// Waiters still short of their target set it again.
			this.wakeAt = Long.MAX_VALUE;
			this.lock.notifyAll();
		}
	}

}
