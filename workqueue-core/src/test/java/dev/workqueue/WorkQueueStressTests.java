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

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many producers and consumers on a few hot keys, trying to break the invariants: an item
 * is never processed by two consumers at once, no update is lost (a key added after its
 * last processing started is processed again), nothing is left in the internal maps.
 */
class WorkQueueStressTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final int KEYS = 32;

	private static final int PRODUCERS = 4;

	private static final int CONSUMERS = 4;

	private static final int ADDS_PER_PRODUCER = 50_000;

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "PLAIN", "DELAYING" })
	void concurrentProducersAndConsumersNeverShareAnItemNorLoseAnUpdate(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.<String>builder().name("stress"));
		String[] keys = new String[KEYS];
		Map<String, AtomicLong> versions = new HashMap<>();
		Map<String, AtomicLong> versionSeenByLastProcessing = new HashMap<>();
		for (int i = 0; i < KEYS; i++) {
			keys[i] = "key" + i;
			versions.put(keys[i], new AtomicLong());
			versionSeenByLastProcessing.put(keys[i], new AtomicLong(-1));
		}
		Set<String> inProcess = ConcurrentHashMap.newKeySet();
		AtomicReference<String> violation = new AtomicReference<>();
		AtomicLong processings = new AtomicLong();
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			producers.add(TestThreads.start("producer" + p, () -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int i = 0; i < ADDS_PER_PRODUCER; i++) {
					// An equal copy: the queue must match items by equals, not identity.
					String key = new String(keys[random.nextInt(KEYS)]);
					versions.get(key).incrementAndGet();
					if (queue instanceof DelayingQueue<String> delaying && random.nextInt(8) == 0) {
						delaying.addAfter(key, Duration.ofNanos(random.nextInt(200_000)));
					}
					else {
						queue.add(key);
					}
				}
			}));
		}
		List<Thread> consumers = new ArrayList<>();
		for (int c = 0; c < CONSUMERS; c++) {
			consumers.add(TestThreads.start("consumer" + c, () -> {
				try {
					for (String key = queue.get(); key != null; key = queue.get()) {
						if (!inProcess.add(key)) {
							violation.compareAndSet(null, key + " handed to two consumers at once");
						}
						// Processing reads the state its start can see; the rule says it
						// saw the latest update or another processing follows.
						versionSeenByLastProcessing.get(key).set(versions.get(key).get());
						processings.incrementAndGet();
						if (ThreadLocalRandom.current().nextInt(16) == 0) {
							Thread.yield();
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
		// Producers are done: waiting items only fall due, then the queue drains.
		Await.atMost(DEADLINE).until(() -> queue.stats().waiting() == 0);
		Await.atMost(DEADLINE).until(() -> {
			WorkQueueStats stats = queue.stats();
			return stats.depth() == 0 && stats.processing() == 0;
		});
		queue.shutDown();
		TestThreads.join(consumers, DEADLINE);
		assertThat(violation.get()).isNull();
		for (String key : keys) {
			assertThat(versionSeenByLastProcessing.get(key).get()).as("last processing of %s saw its last update", key)
				.isEqualTo(versions.get(key).get());
		}
		assertThat(processings.get()).as("duplicates were folded").isLessThan((long) PRODUCERS * ADDS_PER_PRODUCER);
		assertThat(QueueKind.engine(queue).trackedItems()).isZero();
	}

	/**
	 * Consumers take items through their pollers (done with the next poll), while a
	 * pauser wakes random pollers all along: a woken poll takes nothing, and the queue
	 * still drains without a poll timing out (each waits a minute).
	 */
	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void pollersWokenAllAlongNeverShareAnItemNorLoseOne(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.<String>builder().name("stress"));
		Map<String, AtomicLong> versions = new ConcurrentHashMap<>();
		Map<String, AtomicLong> versionSeenByLastProcessing = new ConcurrentHashMap<>();
		Set<String> inProcess = ConcurrentHashMap.newKeySet();
		AtomicReference<String> violation = new AtomicReference<>();
		AtomicLong wakeUps = new AtomicLong();
		List<Poller<String>> pollers = new ArrayList<>();
		List<Thread> consumers = new ArrayList<>();
		for (int c = 0; c < CONSUMERS; c++) {
			Poller<String> poller = Pollers.of(queue);
			pollers.add(poller);
			consumers.add(TestThreads.start("consumer" + c, () -> {
				try {
					Prioritized<String> next = poller.poll(Duration.ofMinutes(1));
					while (next != null || !queue.isShuttingDown()) {
						if (next == null) {
							next = poller.poll(Duration.ofMinutes(1));
							continue;
						}
						String key = next.item();
						if (!inProcess.add(key)) {
							violation.compareAndSet(null, key + " handed to two consumers at once");
						}
						versionSeenByLastProcessing.get(key).set(versions.get(key).get());
						inProcess.remove(key);
						next = poller.doneAndPoll(key, Duration.ofMinutes(1));
					}
				}
				catch (InterruptedException ex) {
					violation.compareAndSet(null, "consumer interrupted");
				}
			}));
		}
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			int producer = p;
			producers.add(TestThreads.start("producer" + p, () -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int i = 0; i < ADDS_PER_PRODUCER / 10; i++) {
					// Fresh keys mostly, so that a lost signal strands an item.
					String key = "p" + producer + "-" + random.nextInt(ADDS_PER_PRODUCER / 20);
					versions.computeIfAbsent(key, (k) -> new AtomicLong());
					versionSeenByLastProcessing.computeIfAbsent(key, (k) -> new AtomicLong(-1));
					versions.get(key).incrementAndGet();
					if (queue instanceof DelayingQueue<String> delaying && random.nextInt(8) == 0) {
						delaying.addAfter(key, Duration.ofNanos(random.nextInt(200_000)));
					}
					else {
						queue.add(key);
					}
				}
			}));
		}
		Thread pauser = TestThreads.start("pauser", () -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			// At least once, however soon the producers finish.
			do {
				pollers.get(random.nextInt(pollers.size())).wakeup();
				wakeUps.incrementAndGet();
				Thread.yield();
			}
			while (producers.stream().anyMatch(Thread::isAlive));
		});
		TestThreads.join(producers, DEADLINE);
		TestThreads.join(List.of(pauser), DEADLINE);
		Await.atMost(DEADLINE).until(() -> {
			WorkQueueStats stats = queue.stats();
			return stats.waiting() == 0 && stats.depth() == 0 && stats.processing() == 0;
		});
		queue.shutDown();
		// A woken poll ends at once; the shutdown ends the others.
		pollers.forEach(Poller::wakeup);
		TestThreads.join(consumers, DEADLINE);
		assertThat(violation.get()).isNull();
		assertThat(wakeUps.get()).isPositive();
		versions.forEach((key, version) -> assertThat(versionSeenByLastProcessing.get(key).get())
			.as("last processing of %s saw its last update", key)
			.isEqualTo(version.get()));
		assertThat(QueueKind.engine(queue).trackedItems()).isZero();
	}

	@Test
	void concurrentDelayedAddsEachArriveOnceAtTheirEarliestTime() throws Exception {
		FakeClock clock = new FakeClock();
		int items = 5_000;
		int maxDelayMillis = 100;
		Map<String, Long> earliestMillis = new ConcurrentHashMap<>();
		try (DelayingQueue<String> queue = WorkQueues.<String>builder().clock(clock).buildDelayingQueue()) {
			List<Thread> producers = new ArrayList<>();
			for (int p = 0; p < PRODUCERS; p++) {
				producers.add(TestThreads.start("producer" + p, () -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int i = 0; i < 20_000; i++) {
						String item = "item" + random.nextInt(items);
						long delayMillis = 1 + random.nextInt(maxDelayMillis);
						earliestMillis.merge(item, delayMillis, Math::min);
						queue.addAfter(item, Duration.ofMillis(delayMillis));
					}
				}));
			}
			TestThreads.join(producers, DEADLINE);
			for (long nowMillis = 5; nowMillis <= maxDelayMillis; nowMillis += 5) {
				clock.step(Duration.ofMillis(5));
				long due = countDue(earliestMillis, nowMillis);
				assertThat(queue.size()).as("due at %d ms", nowMillis).isEqualTo((int) due);
				assertThat(queue.stats().waiting()).isEqualTo(earliestMillis.size() - (int) due);
			}
			Map<String, Integer> arrivals = new HashMap<>();
			for (String item = queue.poll(Duration.ZERO); item != null; item = queue.poll(Duration.ZERO)) {
				arrivals.merge(item, 1, Integer::sum);
				queue.done(item);
			}
			assertThat(arrivals).hasSize(earliestMillis.size());
			assertThat(arrivals.values()).containsOnly(1);
			assertThat(QueueKind.engine(queue).trackedItems()).isZero();
		}
	}

	@Test
	void shutDownRacingWithDelayedAddsLeavesNothingBehind() throws Exception {
		for (int round = 0; round < 20; round++) {
			DelayingQueue<String> queue = WorkQueues.<String>builder().buildDelayingQueue();
			List<Thread> producers = new ArrayList<>();
			for (int p = 0; p < PRODUCERS; p++) {
				producers.add(TestThreads.start("producer" + p, () -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					while (!queue.isShuttingDown()) {
						queue.addAfter("item" + random.nextInt(1000), Duration.ofMinutes(1));
					}
					for (int i = 0; i < 100; i++) {
						queue.addAfter("late" + i, Duration.ofMinutes(1));
					}
				}));
			}
			queue.addAfter("first", Duration.ofMinutes(1));
			Await.until(() -> queue.stats().retries() > 1000);
			queue.shutDown();
			TestThreads.join(producers, DEADLINE);
			assertThat(QueueKind.engine(queue).trackedItems()).isZero();
			assertThat(queue.stats().waiting()).isZero();
			assertThat(queue.size()).isZero();
		}
	}

	@Test
	void statsNeverMissAnItemMovingFromWaitingToQueued() throws Exception {
		DelayingQueue<String> queue = WorkQueues.<String>builder().buildDelayingQueue();
		AtomicLong completedAdds = new AtomicLong();
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			String prefix = "producer" + p + "-";
			producers.add(TestThreads.start(prefix, () -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int i = 0; i < ADDS_PER_PRODUCER; i++) {
					// Distinct items due within a millisecond: the producers' own adds
					// and
					// the stats below move them into the queue while producers still add.
					queue.addAfter(prefix + i, Duration.ofNanos(1 + random.nextInt(1_000_000)));
					completedAdds.incrementAndGet();
				}
			}));
		}
		long total = (long) PRODUCERS * ADDS_PER_PRODUCER;
		long samples = 0;
		long completed;
		do {
			completed = completedAdds.get();
			WorkQueueStats stats = queue.stats();
			// Nobody takes items: each completed add is waiting or queued, never neither.
			assertThat((long) stats.waiting() + stats.depth()).as("waiting + depth").isGreaterThanOrEqualTo(completed);
			samples++;
		}
		while (completed < total);
		TestThreads.join(producers, DEADLINE);
		Await.until(() -> queue.size() == total);
		assertThat(queue.stats().waiting()).isZero();
		assertThat(samples).isGreaterThan(1);
		queue.shutDown();
	}

	@Test
	void statsNeverCountAnItemTwiceWhileItMovesFromWaitingToQueued() throws Exception {
		DelayingQueue<Integer> queue = WorkQueues.<Integer>builder().buildDelayingQueue();
		for (int round = 0; round < 20_000; round++) {
			queue.addAfter(round, Duration.ofNanos(1));
			// The queue's only item, read as fast as possible until a read moves it:
			// waiting, then ready, and always exactly once.
			long deadlineNanos = System.nanoTime() + DEADLINE.toNanos();
			WorkQueueStats stats;
			do {
				stats = queue.stats();
				assertThat(stats.waiting() + stats.depth() + stats.processing()).as("round %d: %s", round, stats)
					.isEqualTo(1);
				assertThat(System.nanoTime()).as("moved before the deadline").isLessThan(deadlineNanos);
			}
			while (stats.depth() == 0);
			queue.done(queue.get());
		}
		queue.shutDown();
	}

	@Test
	void consumersTakingTurnsToWaitForDelaysLoseNothingAndNeverShareAnItem() throws Exception {
		DelayingQueue<String> queue = WorkQueues.<String>builder().name("leaders").buildDelayingQueue();
		int adds = 20_000;
		// Per key: when its last addAfter was called, and when a consumer last got it.
		// That add either set a ready time or was folded into an earlier one still
		// pending: either way a hand-out follows the call.
		Map<String, AtomicLong> lastAdded = new ConcurrentHashMap<>();
		Map<String, AtomicLong> lastHandedOut = new ConcurrentHashMap<>();
		Set<String> inProcess = ConcurrentHashMap.newKeySet();
		AtomicReference<String> violation = new AtomicReference<>();
		List<Thread> consumers = new ArrayList<>();
		for (int c = 0; c < CONSUMERS; c++) {
			consumers.add(TestThreads.start("consumer" + c, () -> {
				try {
					// Half poll with short timeouts, so that waiting consumers keep
					// leaving
					// and handing the wait for the earliest item on.
					boolean polls = Thread.currentThread().getName().endsWith("1")
							|| Thread.currentThread().getName().endsWith("3");
					for (String item = take(queue, polls); item != null
							|| !queue.isShuttingDown(); item = take(queue, polls)) {
						if (item == null) {
							continue;
						}
						lastHandedOut.computeIfAbsent(item, (key) -> new AtomicLong()).set(System.nanoTime());
						if (!inProcess.add(item)) {
							violation.compareAndSet(null, item + " handed to two consumers");
						}
						inProcess.remove(item);
						queue.done(item);
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}));
		}
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < PRODUCERS; p++) {
			producers.add(TestThreads.start("producer" + p, () -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int i = 0; i < adds; i++) {
					String key = "key" + random.nextInt(KEYS * 8);
					long delayNanos = random.nextInt(2_000_000);
					// Under the key's lock, so that the recorded time is the last add's.
					synchronized (lastAdded.computeIfAbsent(key, (k) -> new AtomicLong())) {
						lastAdded.get(key).set(System.nanoTime());
						queue.addAfter(key, Duration.ofNanos(delayNanos));
					}
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
		for (Map.Entry<String, AtomicLong> entry : lastAdded.entrySet()) {
			assertThat(lastHandedOut.get(entry.getKey())).as("%s handed out", entry.getKey()).isNotNull();
			assertThat(lastHandedOut.get(entry.getKey()).get()).as("%s handed out after its last add", entry.getKey())
				.isGreaterThanOrEqualTo(entry.getValue().get());
		}
		assertThat(QueueKind.engine(queue).trackedItems()).isZero();
	}

	private static String take(DelayingQueue<String> queue, boolean polls) throws InterruptedException {
		return polls ? queue.poll(Duration.ofNanos(ThreadLocalRandom.current().nextInt(500_000))) : queue.get();
	}

	private static long countDue(Map<String, Long> earliestMillis, long nowMillis) {
		return earliestMillis.values().stream().filter((millis) -> millis <= nowMillis).count();
	}

}
