package dev.workqueue.time;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

/**
 * {@link FakeClock}: moves only on {@code step}, wakes waiters whose deadline it passes,
 * and tells tests whether anyone waits.
 */
class FakeClockTests {

	private final FakeClock clock = new FakeClock();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition condition = this.lock.newCondition();

	private Thread waiter;

	@AfterEach
	void stopWaiter() throws InterruptedException {
		if (this.waiter != null) {
			this.waiter.interrupt();
			this.waiter.join(1000);
		}
	}

	/** Starts a thread that waits until the clock reads the deadline; completes then. */
	private CompletableFuture<Long> waitUntil(long deadlineNanos) {
		CompletableFuture<Long> woken = new CompletableFuture<>();
		this.waiter = new Thread(() -> {
			this.lock.lock();
			try {
				while (this.clock.nanoTime() < deadlineNanos) {
					this.clock.awaitUntil(this.lock, this.condition, deadlineNanos);
				}
				woken.complete(this.clock.nanoTime());
			}
			catch (InterruptedException ex) {
				woken.completeExceptionally(ex);
			}
			finally {
				this.lock.unlock();
			}
		});
		this.waiter.start();
		await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10)).until(this.clock::hasWaiters);
		return woken;
	}

	@Test
	void startsAtZeroAndMovesOnlyWhenStepped() {
		assertThat(this.clock.nanoTime()).isZero();
		this.clock.step(Duration.ofMillis(1500));
		assertThat(this.clock.nanoTime()).isEqualTo(1_500_000_000L);
		this.clock.step(Duration.ZERO);
		assertThat(this.clock.nanoTime()).isEqualTo(1_500_000_000L);
	}

	@Test
	void stepPastTheDeadlineWakesTheWaiter() throws Exception {
		CompletableFuture<Long> woken = waitUntil(Duration.ofSeconds(2).toNanos());
		assertThat(this.clock.numWaiters()).isOne();
		this.clock.step(Duration.ofSeconds(3));
		assertThat(woken.get(1, TimeUnit.SECONDS)).isEqualTo(Duration.ofSeconds(3).toNanos());
		assertThat(this.clock.hasWaiters()).isFalse();
	}

	@Test
	void stepShortOfTheDeadlineLeavesTheWaiterWaiting() throws Exception {
		CompletableFuture<Long> woken = waitUntil(Duration.ofSeconds(2).toNanos());
		this.clock.step(Duration.ofMillis(1999));
		assertThat(this.clock.hasWaiters()).isTrue();
		assertThat(woken).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		assertThat(woken.get(1, TimeUnit.SECONDS)).isEqualTo(Duration.ofSeconds(2).toNanos());
	}

	@Test
	void signalWakesTheWaiterBeforeItsDeadline() throws Exception {
		CompletableFuture<Long> woken = new CompletableFuture<>();
		this.waiter = new Thread(() -> {
			this.lock.lock();
			try {
				this.clock.awaitUntil(this.lock, this.condition, Long.MAX_VALUE);
				woken.complete(this.clock.nanoTime());
			}
			catch (InterruptedException ex) {
				woken.completeExceptionally(ex);
			}
			finally {
				this.lock.unlock();
			}
		});
		this.waiter.start();
		await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10)).until(this.clock::hasWaiters);
		this.lock.lock();
		try {
			this.condition.signal();
		}
		finally {
			this.lock.unlock();
		}
		assertThat(woken.get(1, TimeUnit.SECONDS)).isZero();
		assertThat(this.clock.hasWaiters()).as("deregistered").isFalse();
	}

	@Test
	void awaitUntilAReachedDeadlineReturnsAtOnce() throws InterruptedException {
		this.clock.step(Duration.ofSeconds(1));
		this.lock.lock();
		try {
			this.clock.awaitUntil(this.lock, this.condition, Duration.ofSeconds(1).toNanos());
		}
		finally {
			this.lock.unlock();
		}
		assertThat(this.clock.hasWaiters()).isFalse();
	}

	@Test
	void sleepUntilReturnsOnceSteppedThere() throws Exception {
		CompletableFuture<Void> slept = CompletableFuture.runAsync(() -> {
			try {
				this.clock.sleepUntil(Duration.ofSeconds(5).toNanos());
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10)).until(this.clock::hasWaiters);
		this.clock.step(Duration.ofSeconds(4));
		assertThat(slept).isNotDone();
		this.clock.step(Duration.ofSeconds(1));
		slept.get(1, TimeUnit.SECONDS);
	}

	@Test
	void negativeStepIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.clock.step(Duration.ofNanos(-1)))
			.withMessageContaining("duration");
		assertThat(this.clock.nanoTime()).isZero();
	}

	@Test
	void nullStepIsRejected() {
		assertThatNullPointerException().isThrownBy(() -> this.clock.step(null)).withMessage("duration");
	}

	@Test
	void stepsSaturateInsteadOfOverflowing() {
		this.clock.step(Duration.ofSeconds(Long.MAX_VALUE));
		this.clock.step(Duration.ofDays(1));
		assertThat(this.clock.nanoTime()).isEqualTo(Long.MAX_VALUE);
	}

}
