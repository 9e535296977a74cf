package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class TokenBucketStressTests {

	private static final int THREADS = 4;

	private static final int BURST = 64;

	private static final int STEPS = 1000;

	private static final int TOKENS_PER_STEP = 16;

	/** With 1 ms steps, each step adds exactly {@link #TOKENS_PER_STEP} tokens. */
	private static final double RATE = TOKENS_PER_STEP * 1000;

	private static final Duration STEP = Duration.ofMillis(1);

	@Test
	void concurrentAllowNNeverGrantsMoreThanBurstPlusRefillAndLosesNothing() throws Exception {
		FakeClock clock = new FakeClock();
		TokenBucket bucket = new TokenBucket(RATE, BURST, clock);
		AtomicLong granted = new AtomicLong();
		// Steps are numbered; a taker records the step during which it saw allowN fail.
		AtomicInteger step = new AtomicInteger();
		AtomicInteger failedDuringStep = new AtomicInteger(-1);
		AtomicInteger running = new AtomicInteger(1);
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> takers = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int seed = t;
				takers.add(executor.submit(() -> {
					for (int i = seed; running.get() == 1; i++) {
						int n = 1 + (i % 3);
						int stepBefore = step.get();
						if (bucket.allowN(n)) {
							granted.addAndGet(n);
						}
						else {
							failedDuringStep.accumulateAndGet(stepBefore, Math::max);
						}
					}
				}));
			}
			for (int s = 1; s <= STEPS; s++) {
				int current = s - 1;
				// Refill only once the takers found the bucket short (fewer than 3
				// tokens), so it never fills up to the burst and drops refill: then
				// every token must be granted exactly once.
				await().atMost(Duration.ofSeconds(5))
					.pollDelay(Duration.ZERO)
					.pollInterval(Duration.ofMillis(1))
					.pollInSameThread()
					.until(() -> failedDuringStep.get() >= current);
				clock.step(STEP);
				step.set(s);
				long grantedSoFar = granted.get();
				// Every grant counted above happened at a clock reading <= this one.
				assertThat(grantedSoFar).isLessThanOrEqualTo(BURST + tokensRefilledBy(clock));
			}
			running.set(0);
			for (Future<?> taker : takers) {
				taker.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
		long drained = 0;
		while (bucket.allow()) {
			drained++;
		}
		assertThat(granted.get() + drained).isEqualTo(BURST + (long) STEPS * TOKENS_PER_STEP);
	}

	private static long tokensRefilledBy(FakeClock clock) {
		return clock.nanoTime() / STEP.toNanos() * TOKENS_PER_STEP;
	}

}
