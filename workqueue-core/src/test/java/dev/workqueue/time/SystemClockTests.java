package dev.workqueue.time;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Clock#system()}: monotonic, starting near zero, waiting in real time.
 */
class SystemClockTests {

	private final Clock clock = Clock.system();

	@Test
	void isOneSharedInstance() {
		assertThat(Clock.system()).isSameAs(this.clock).hasToString("Clock.system()");
	}

	@Test
	void readingsNeverDecreaseAndStayFarFromOverflow() {
		long previous = this.clock.nanoTime();
		assertThat(previous).isNotNegative().isLessThan(Long.MAX_VALUE / 2);
		for (int i = 0; i < 10_000; i++) {
			long now = this.clock.nanoTime();
			assertThat(now).isGreaterThanOrEqualTo(previous);
			previous = now;
		}
	}

	@Test
	void sleepUntilWaitsUntilTheDeadline() throws InterruptedException {
		long deadlineNanos = this.clock.nanoTime() + Duration.ofMillis(5).toNanos();
		this.clock.sleepUntil(deadlineNanos);
		assertThat(this.clock.nanoTime()).isGreaterThanOrEqualTo(deadlineNanos);
	}

	@Test
	void awaitUntilReturnsAtTheDeadlineOrEarlier() throws InterruptedException {
		ReentrantLock lock = new ReentrantLock();
		Condition condition = lock.newCondition();
		long deadlineNanos = this.clock.nanoTime() + Duration.ofMillis(5).toNanos();
		lock.lock();
		try {
			while (this.clock.nanoTime() < deadlineNanos) {
				this.clock.awaitUntil(lock, condition, deadlineNanos);
			}
		}
		finally {
			lock.unlock();
		}
		assertThat(this.clock.nanoTime()).isGreaterThanOrEqualTo(deadlineNanos);
	}

	@Test
	void awaitUntilAPastDeadlineReturnsAtOnce() throws InterruptedException {
		ReentrantLock lock = new ReentrantLock();
		long startNanos = this.clock.nanoTime();
		lock.lock();
		try {
			this.clock.awaitUntil(lock, lock.newCondition(), 0);
		}
		finally {
			lock.unlock();
		}
		assertThat(this.clock.nanoTime() - startNanos).isLessThan(Duration.ofMillis(500).toNanos());
	}

	@Test
	void sleepUntilInterruptedThrows() {
		Thread.currentThread().interrupt();
		try {
			this.clock.sleepUntil(this.clock.nanoTime() + Duration.ofSeconds(10).toNanos());
			throw new AssertionError("expected an InterruptedException");
		}
		catch (InterruptedException expected) {
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
		}
	}

}
