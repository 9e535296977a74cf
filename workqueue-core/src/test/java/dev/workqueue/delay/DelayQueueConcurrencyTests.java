package dev.workqueue.delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.workqueue.delay.DelayQueue.Entry;
import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Races between producers, consumers, cancels and reschedules on a {@link DelayQueue}:
 * every value is taken at most once, a cancelled one never, and none is lost.
 */
class DelayQueueConcurrencyTests {

	@RepeatedTest(3)
	void cancelAndRescheduleRacingSeveralTakersNeverDuplicateOrLoseAValue() throws Exception {
		FakeClock clock = new FakeClock();
		DelayQueue<Integer> queue = new DelayQueue<>(clock);
		int producers = 2;
		int consumers = 3;
		int valuesPerProducer = 20_000;
		Map<Integer, Entry<Integer>> entries = new ConcurrentHashMap<>();
		Set<Integer> cancelled = ConcurrentHashMap.newKeySet();
		Map<Integer, Integer> takes = new ConcurrentHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(producers + consumers + 2);
		try {
			CyclicBarrier start = new CyclicBarrier(producers + consumers + 2);
			AtomicBoolean producing = new AtomicBoolean(true);
			List<Future<?>> producerTasks = new ArrayList<>();
			for (int p = 0; p < producers; p++) {
				int base = p * valuesPerProducer;
				producerTasks.add(pool.submit(() -> {
					Random random = new Random(base);
					start.await();
					for (int i = 0; i < valuesPerProducer; i++) {
						int value = base + i;
						entries.put(value, queue.push(value, Duration.ofMillis(random.nextInt(20) - 5)));
					}
					return null;
				}));
			}
			Future<?> meddler = pool.submit(() -> {
				Random random = new Random(99);
				start.await();
				while (producing.get()) {
					Entry<Integer> entry = entries.get(random.nextInt(producers * valuesPerProducer));
					if (entry == null) {
						continue;
					}
					if (random.nextBoolean()) {
						if (entry.cancel()) {
							cancelled.add(entry.value());
						}
					}
					else {
						entry.reschedule(Duration.ofMillis(random.nextInt(10) - 2));
					}
				}
				return null;
			});
			Future<?> stepper = pool.submit(() -> {
				start.await();
				while (producing.get()) {
					clock.step(Duration.ofMillis(1));
				}
				return null;
			});
			List<Future<?>> consumerTasks = new ArrayList<>();
			for (int c = 0; c < consumers; c++) {
				consumerTasks.add(pool.submit(() -> {
					start.await();
					for (Integer value = queue.take(); value != null; value = queue.take()) {
						takes.merge(value, 1, Integer::sum);
					}
					return null;
				}));
			}
			for (Future<?> producer : producerTasks) {
				producer.get(20, TimeUnit.SECONDS);
			}
			producing.set(false);
			meddler.get(5, TimeUnit.SECONDS);
			stepper.get(5, TimeUnit.SECONDS);
			clock.step(Duration.ofSeconds(1));
			queue.close();
			for (Future<?> consumer : consumerTasks) {
				consumer.get(20, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(queue.size()).isZero();
		assertThat(takes.values()).allMatch((count) -> count == 1, "taken once");
		assertThat(cancelled).doesNotContainAnyElementsOf(takes.keySet());
		assertThat(takes.size() + cancelled.size()).isEqualTo(producers * valuesPerProducer);
	}

	@Test
	void producersAndConsumersOnTheSystemClockHandOverEveryValueInTime() throws Exception {
		Clock clock = Clock.system();
		DelayQueue<Long> queue = new DelayQueue<>(clock);
		int count = 5_000;
		Map<Long, Long> takenAtNanos = new ConcurrentHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(3);
		try {
			List<Future<?>> consumers = new ArrayList<>();
			for (int c = 0; c < 2; c++) {
				consumers.add(pool.submit(() -> {
					for (Long due = queue.take(); due != null; due = queue.take()) {
						takenAtNanos.put(due, clock.nanoTime());
					}
					return null;
				}));
			}
			Random random = new Random(5);
			Set<Long> pushed = new HashSet<>();
			for (int i = 0; i < count; i++) {
				long delayNanos = Duration.ofMillis(random.nextInt(200)).toNanos();
				// The value is a lower bound of its due time (the push reads the clock
				// later), made unique.
				long dueNanos = clock.nanoTime() + delayNanos;
				while (!pushed.add(dueNanos)) {
					dueNanos--;
				}
				queue.push(dueNanos, Duration.ofNanos(delayNanos));
			}
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> queue.size() == 0);
			queue.close();
			for (Future<?> consumer : consumers) {
				consumer.get(5, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(takenAtNanos).hasSize(count);
		assertThat(takenAtNanos).allSatisfy((due, takenAt) -> assertThat(takenAt).isGreaterThanOrEqualTo(due));
	}

}
