package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class TokenBucketBlockingTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final FakeClock clock = new FakeClock();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void shutDownExecutor() {
		this.executor.shutdownNow();
	}

	@Test
	void acquireTakesAnAvailableTokenWithoutWaiting() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		bucket.acquire();
		assertThat(this.clock.hasWaiters()).isFalse();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void acquireBlocksUntilTheClockReachesItsToken() throws Exception {
		TokenBucket bucket = new TokenBucket(10, 1, this.clock);
		bucket.acquire();
		Future<?> second = this.executor.submit(() -> {
			bucket.acquire();
			return null;
		});
		await().atMost(DEADLINE).until(this.clock::hasWaiters);
		this.clock.step(Duration.ofMillis(99));
		assertThat(second).isNotDone();
		assertThat(this.clock.hasWaiters()).isTrue();
		this.clock.step(Duration.ofMillis(1));
		await().atMost(DEADLINE).until(second::isDone);
		second.get();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void tryAcquireWithinItsTimeoutBlocksUntilTheStep() throws Exception {
		TokenBucket bucket = new TokenBucket(1, 2, this.clock);
		bucket.allowN(2);
		Future<Boolean> acquired = this.executor.submit(() -> bucket.tryAcquire(2, Duration.ofSeconds(2)));
		await().atMost(DEADLINE).until(this.clock::hasWaiters);
		this.clock.step(Duration.ofMillis(1999));
		assertThat(acquired).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		await().atMost(DEADLINE).until(acquired::isDone);
		assertThat(acquired.get()).isTrue();
	}

	@Test
	void interruptDuringAcquireGivesTheTokenBack() throws Exception {
		TokenBucket bucket = new TokenBucket(10, 1, this.clock);
		bucket.acquire();
		CompletableFuture<Throwable> outcome = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				bucket.acquire();
				outcome.complete(null);
			}
			catch (Throwable ex) {
				outcome.complete(ex);
			}
		}, "workqueue-test-acquire");
		waiter.setDaemon(true);
		waiter.start();
		await().atMost(DEADLINE).until(this.clock::hasWaiters);
		waiter.interrupt();
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		// Had the waiter kept its reservation, the token due at 100 ms would be its.
		this.clock.step(Duration.ofMillis(100));
		assertThat(bucket.allow()).isTrue();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void interruptDuringTryAcquireGivesTheTokensBack() throws Exception {
		TokenBucket bucket = new TokenBucket(1, 2, this.clock);
		bucket.allowN(2);
		Future<Boolean> acquired = this.executor.submit(() -> bucket.tryAcquire(2, Duration.ofSeconds(5)));
		await().atMost(DEADLINE).until(this.clock::hasWaiters);
		acquired.cancel(true);
		await().atMost(DEADLINE).until(() -> !this.clock.hasWaiters());
		this.clock.step(Duration.ofSeconds(2));
		assertThat(bucket.allowN(2)).isTrue();
	}

	@Test
	void interruptedOnEntryThrowsAndTakesNothing() {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(InterruptedException.class).isThrownBy(bucket::acquire);
			Thread.currentThread().interrupt();
			assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> bucket.tryAcquire(1, Duration.ZERO));
		}
		finally {
			Thread.interrupted();
		}
		assertThat(bucket.allow()).isTrue();
	}

	@Test
	void waitersAreReleasedInReservationOrder() throws Exception {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		bucket.acquire();
		Future<?> first = this.executor.submit(() -> {
			bucket.acquire();
			return null;
		});
		await().atMost(DEADLINE).until(() -> this.clock.numWaiters() == 1);
		Future<?> second = this.executor.submit(() -> {
			bucket.acquire();
			return null;
		});
		await().atMost(DEADLINE).until(() -> this.clock.numWaiters() == 2);
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(DEADLINE).until(first::isDone);
		assertThat(second).isNotDone();
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(DEADLINE).until(second::isDone);
		first.get();
		second.get();
	}

}
