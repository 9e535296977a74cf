package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Producers and consumers on one priority queue at once, with random priorities, delays
 * and re-adds while held: never two holders, no update lost, nothing left behind; and at
 * quiescence a backlog drains in priority order.
 */
class PriorityQueueStressTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final int KEYS = 32;

	private static final int PRODUCERS = 4;

	private static final int CONSUMERS = 4;

	private static final int ADDS_PER_PRODUCER = 30_000;

	private static PriorityQueue<String> newQueue() {
		return WorkQueues.<String>builder()
			.name("stress")
			.starvationTimeout(Duration.ofMillis(5))
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO));
	}

	@Test
	void concurrentProducersAndConsumersNeverShareAnItemNorLoseAnUpdate() throws Exception {
		PriorityQueue<String> queue = newQueue();
		String[] keys = new String[KEYS];
		Map<String, AtomicLong> versions = new HashMap<>();
		Map<String, AtomicLong> seenByLastProcessing = new HashMap<>();
		for (int i = 0; i < KEYS; i++) {
			keys[i] = "key" + i;
			versions.put(keys[i], new AtomicLong());
			seenByLastProcessing.put(keys[i], new AtomicLong(-1));
		}
		Set<String> inProcess = ConcurrentHashMap.newKeySet();
		AtomicReference<String> violation = new AtomicReference<>();
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			producers.add(TestThreads.start("producer" + p, () -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int i = 0; i < ADDS_PER_PRODUCER; i++) {
					String key = new String(keys[random.nextInt(KEYS)]);
					int priority = random.nextInt(-3, 4);
					versions.get(key).incrementAndGet();
					if (random.nextInt(8) == 0) {
						queue.addAfter(key, Duration.ofNanos(random.nextInt(200_000)), priority);
					}
					else {
						queue.add(key, priority);
					}
				}
			}));
		}
		List<Thread> consumers = new ArrayList<>();
		for (int c = 0; c < CONSUMERS; c++) {
			consumers.add(TestThreads.start("consumer" + c, () -> {
				try {
					for (Prioritized<String> next = queue.getWithPriority(); next != null; next = queue
						.getWithPriority()) {
						String key = next.item();
						if (!inProcess.add(key)) {
							violation.compareAndSet(null, key + " handed to two consumers at once");
						}
						seenByLastProcessing.get(key).set(versions.get(key).get());
						if (ThreadLocalRandom.current().nextInt(16) == 0) {
							// Re-added while held: dirty, handed out again after done.
							queue.add(key, next.priority());
						}
						inProcess.remove(key);
						queue.done(key);
					}
				}
				catch (InterruptedException ex) {
					violation.compareAndSet(null, "consumer interrupted");
				}
			}));
		}
		TestThreads.join(producers, DEADLINE);
		Await.atMost(DEADLINE).until(() -> {
			WorkQueueStats stats = queue.stats();
			return stats.waiting() == 0 && stats.depth() == 0 && stats.processing() == 0;
		});
		queue.shutDown();
		TestThreads.join(consumers, DEADLINE);
		assertThat(violation.get()).isNull();
		for (String key : keys) {
			assertThat(seenByLastProcessing.get(key).get()).as("last processing of %s saw its last update", key)
				.isEqualTo(versions.get(key).get());
		}
		assertThat(QueueKind.engine(queue).trackedItems()).as("no entry left behind").isZero();
	}

	@Test
	void aBacklogDrainsInPriorityOrderAtQuiescence() throws Exception {
		PriorityQueue<String> queue = WorkQueues.<String>builder()
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO));
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			int producer = p;
			producers.add(TestThreads.start("producer" + p, () -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int i = 0; i < 5_000; i++) {
					queue.add("item-" + producer + "-" + i, random.nextInt(-1000, 1001));
				}
			}));
		}
		TestThreads.join(producers, DEADLINE);
		assertThat(queue.size()).isEqualTo(PRODUCERS * 5_000);
		int previous = Integer.MAX_VALUE;
		Prioritized<String> next;
		while ((next = queue.pollWithPriority(Duration.ZERO)) != null) {
			assertThat(next.priority()).as(next.item()).isLessThanOrEqualTo(previous);
			previous = next.priority();
			queue.done(next.item());
		}
		assertThat(QueueKind.engine(queue).trackedItems()).isZero();
	}

}
