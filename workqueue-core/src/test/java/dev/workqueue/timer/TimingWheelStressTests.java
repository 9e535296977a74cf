package dev.workqueue.timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stress tests for {@link TimingWheel}: many timers, many threads, and the real clock.
 */
class TimingWheelStressTests {

	@Test
	void oneMillionTimersEachFireExactlyOnceNeverEarlyAndInDueOrder() throws Exception {
		int count = 1_000_000;
		FakeClock clock = new FakeClock();
		byte[] fires = new byte[count];
		AtomicInteger fired = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		long[] lastDue = { Long.MIN_VALUE };
		// Delays spread over 0 to 60 s with 1 ms ticks: every level of a 512-slot wheel.
		try (TimingWheel<Integer, Integer> wheel = new TimingWheel<>(Duration.ofMillis(1), 512, (key, value) -> {
			long dueNanos = delayNanos(key);
			if (clock.nanoTime() < dueNanos || dueNanos < lastDue[0]) {
				errors.incrementAndGet();
			}
			lastDue[0] = dueNanos;
			fires[key]++;
			// The volatile write publishes the plain writes above to the test thread.
			fired.incrementAndGet();
		}, clock, Runnable::run)) {
			for (int key = 0; key < count; key++) {
				wheel.setTimer(key, key, Duration.ofNanos(delayNanos(key)));
			}
			assertThat(wheel.size()).isEqualTo(count);
			for (int second = 6; second <= 60; second += 6) {
				clock.step(Duration.ofSeconds(6));
				long expected = dueBy(Duration.ofSeconds(second).toNanos(), count);
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(5))
					.until(() -> fired.get() == expected);
			}
			assertThat(wheel.size()).isZero();
		}
		assertThat(errors).hasValue(0);
		for (int key = 0; key < count; key++) {
			if (fires[key] != 1) {
				throw new AssertionError("timer " + key + " fired " + fires[key] + " times");
			}
		}
	}

	private static long delayNanos(int key) {
		// A permutation of the keys scaled to 60 us..60 s, so due order differs from set
		// order and nothing is due while the timers are set.
		return (key * 7_919L % 1_000_000 + 1) * 60_000L;
	}

	private static long dueBy(long nowNanos, int count) {
		return Math.min(count, nowNanos / 60_000L);
	}

	@Test
	void concurrentSetMoveAndRemoveWhileTheClockRunsLoseNothingAndFireNothingTwice() throws Exception {
		FakeClock clock = new FakeClock();
		Map<Long, Integer> fireCounts = new ConcurrentHashMap<>();
		int threads = 4;
		int keysPerThread = 200;
		int opsPerThread = 20_000;
		AtomicLong values = new AtomicLong();
		List<Map<Integer, Long>> lastValues = new ArrayList<>();
		ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
		try (TimingWheel<Integer, Long> wheel = new TimingWheel<>(Duration.ofMillis(1), 8,
				(key, value) -> fireCounts.merge(value, 1, Integer::sum), clock)) {
			CyclicBarrier start = new CyclicBarrier(threads + 1);
			AtomicBoolean running = new AtomicBoolean(true);
			Future<?> stepper = pool.submit(() -> {
				start.await();
				while (running.get()) {
					clock.step(Duration.ofMillis(1));
				}
				return null;
			});
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int base = t * keysPerThread;
				Map<Integer, Long> last = new ConcurrentHashMap<>();
				lastValues.add(last);
				workers.add(pool.submit(() -> {
					Random random = new Random(base);
					start.await();
					for (int i = 0; i < opsPerThread; i++) {
						int key = base + random.nextInt(keysPerThread);
						Duration delay = Duration.ofMillis(random.nextInt(300) - 20);
						switch (random.nextInt(4)) {
							case 0, 1 -> {
								long value = values.incrementAndGet();
								wheel.setTimer(key, value, delay);
								last.put(key, value);
							}
							case 2 -> wheel.moveTimer(key, delay);
							default -> {
								wheel.removeTimer(key);
								last.remove(key);
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(20, TimeUnit.SECONDS);
			}
			running.set(false);
			stepper.get(5, TimeUnit.SECONDS);
			clock.step(Duration.ofSeconds(10));
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> wheel.size() == 0);
			// The last value set on a key that was not removed afterwards must fire.
			List<Long> mustFire = lastValues.stream().flatMap((last) -> last.values().stream()).toList();
			Awaitility.await()
				.atMost(Duration.ofSeconds(5))
				.until(() -> mustFire.stream().allMatch(fireCounts::containsKey));
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(fireCounts.values()).allMatch((fires) -> fires == 1);
		assertThat(fireCounts.keySet()).allMatch((value) -> value > 0 && value <= values.get());
	}

	@Test
	void timersOnTheSystemClockNeverFireEarly() {
		Clock clock = Clock.system();
		int count = 2_000;
		long intervalNanos = Duration.ofMillis(5).toNanos();
		Map<Integer, Long> latenessNanos = new ConcurrentHashMap<>();
		long[] dueNanos = new long[count];
		try (TimingWheel<Integer, Integer> wheel = new TimingWheel<>(Duration.ofMillis(5), 16,
				(key, value) -> latenessNanos.put(key, clock.nanoTime() - dueNanos[key]), clock)) {
			Random random = new Random(7);
			for (int key = 0; key < count; key++) {
				long delayNanos = Duration.ofMillis(random.nextInt(300)).toNanos();
				dueNanos[key] = clock.nanoTime() + delayNanos;
				wheel.setTimer(key, key, Duration.ofNanos(delayNanos));
			}
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> latenessNanos.size() == count);
		}
		assertThat(latenessNanos.values()).allMatch((lateness) -> lateness >= 0, "never early");
		List<Long> sorted = latenessNanos.values().stream().sorted().toList();
		// Noise on a loaded 2-core machine is large: this only catches lost ticks.
		assertThat(sorted.get(count / 2)).isLessThan(intervalNanos + Duration.ofMillis(100).toNanos());
	}

}
