package dev.workqueue.timer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;

/**
 * A {@link FakeClock} that also remembers the deadline its one waiter (the wheel's
 * thread) parked with, so a test can tell a wheel that is idle until later from one that
 * a step has just woken: once the wheel is parked with a deadline after the current
 * reading, with a direct executor, it has fired everything due by that reading.
 * <p>
 * A park that a {@code setTimer} has just signalled still looks idle until the wheel's
 * thread wakes, so tests step the clock between setting a timer and checking that it has
 * not fired; such a check can then only be weaker than intended, never wrong.
 */
final class ParkingClock implements Clock {

	private final FakeClock clock = new FakeClock();

	/** The deadline of the waiter, or -1 while it is not in awaitUntil. */
	private volatile long parkedUntilNanos = -1;

	private final AtomicInteger parks = new AtomicInteger();

	@Override
	public long nanoTime() {
		return this.clock.nanoTime();
	}

	@Override
	public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
		this.parks.incrementAndGet();
		this.parkedUntilNanos = deadlineNanos;
		try {
			this.clock.awaitUntil(lock, condition, deadlineNanos);
		}
		finally {
			this.parkedUntilNanos = -1;
		}
	}

	void step(Duration duration) {
		this.clock.step(duration);
	}

	void stepTo(long nanos) {
		this.clock.step(Duration.ofNanos(nanos - this.clock.nanoTime()));
	}

	/** How many times the waiter has gone to wait. */
	int parks() {
		return this.parks.get();
	}

	/** Waits until the wheel's thread is parked until after the current reading. */
	void awaitParked() {
		TimingWheelTests.soon().until(() -> this.parkedUntilNanos > this.clock.nanoTime() && this.clock.hasWaiters());
	}

	@Override
	public String toString() {
		return this.clock.toString();
	}

}
