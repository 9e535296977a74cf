package dev.workqueue.postgres;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.time.Clock;

/**
 * How a background thread sleeps until its next run on a clock, and how the other parts
 * of a handle wake it sooner. It exists before the thread's work, so that the parts made
 * before it can hold it. Thread-safe: {@code lock} guards {@code rung}.
 */
final class Alarm {

	private final Clock clock;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition rang = this.lock.newCondition();

	private boolean rung;

	Alarm(Clock clock) {
		this.clock = clock;
	}

	/** Wakes the sleeper now, or makes its next sleep end at once. */
	void ring() {
		this.lock.lock();
		try {
			this.rung = true;
			this.rang.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Sleeps until the clock reads {@code wakeAtNanos} or the alarm rings.
	 * @param wakeAtNanos when to wake, on the clock
	 * @throws InterruptedException if interrupted
	 */
	void sleepUntil(long wakeAtNanos) throws InterruptedException {
		this.lock.lock();
		try {
			while (!this.rung && this.clock.nanoTime() < wakeAtNanos) {
				this.clock.awaitUntil(this.lock, this.rang, wakeAtNanos);
			}
			this.rung = false;
		}
		finally {
			this.lock.unlock();
		}
	}

}
