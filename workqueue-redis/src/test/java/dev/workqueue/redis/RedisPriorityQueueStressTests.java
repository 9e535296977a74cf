package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two handles (instances) of one priority queue, three consumers each, on the server's
 * clock: items added with random priorities, now or after a short delay, some added again
 * while held. Never two holders of an item, nothing lost (every item is handed out after
 * its last add), and at quiescence nothing left in Redis but the queue's mark.
 */
@RequiresRedis
class RedisPriorityQueueStressTests {

	private static final int ITEMS = 600;

	private final RedisFixture redis = new RedisFixture();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private PriorityQueue<String> instance() {
		return this.redis.track(this.redis.builder("stress")
			.starvationTimeout(Duration.ofMillis(200))
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1), Duration.ofMillis(20))));
	}

	private static int priority() {
		return ThreadLocalRandom.current().nextInt(PriorityQueue.MIN_PRIORITY, PriorityQueue.MAX_PRIORITY + 1);
	}

	@Test
	void neverTwoHoldersNothingLostAndNothingLeftBehind() throws Exception {
		List<PriorityQueue<String>> handles = List.of(instance(), instance());
		Map<String, String> holders = new ConcurrentHashMap<>();
		// Items added and not handed out since: each must be handed out again.
		Set<String> owed = ConcurrentHashMap.newKeySet();
		Map<String, AtomicInteger> readds = new ConcurrentHashMap<>();
		AtomicInteger handedOut = new AtomicInteger();
		List<String> violations = new ArrayList<>();
		AtomicBoolean stop = new AtomicBoolean();
		List<Thread> consumers = new ArrayList<>();
		for (int h = 0; h < handles.size(); h++) {
			PriorityQueue<String> queue = handles.get(h);
			PriorityQueue<String> other = handles.get(1 - h);
			for (int c = 0; c < 3; c++) {
				String who = "handle-" + h + "/consumer-" + c;
				Thread consumer = new Thread(() -> {
					try {
						while (!stop.get()) {
							Prioritized<String> next = queue.pollWithPriority(Duration.ofMillis(100));
							if (next == null) {
								continue;
							}
							String item = next.item();
							String before = holders.putIfAbsent(item, who);
							if (before != null) {
								synchronized (violations) {
									violations.add(item + " held by " + before + " and " + who);
								}
							}
							owed.remove(item);
							handedOut.incrementAndGet();
							if (ThreadLocalRandom.current().nextInt(5) == 0
									&& readds.computeIfAbsent(item, (i) -> new AtomicInteger())
										.incrementAndGet() <= 2) {
								// Added again while held, by either instance: it runs
								// again.
								owed.add(item);
								(ThreadLocalRandom.current().nextBoolean() ? other : queue).add(item, priority());
							}
							if (ThreadLocalRandom.current().nextInt(4) == 0) {
								// Held a little longer now and then: re-adds find it
								// held.
								Thread.yield();
							}
							holders.remove(item, who);
							queue.done(item);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}, who);
				consumer.start();
				consumers.add(consumer);
			}
		}
		for (int i = 0; i < ITEMS; i++) {
			String item = "item-" + i;
			owed.add(item);
			PriorityQueue<String> queue = handles.get(i % 2);
			switch (i % 3) {
				case 0 -> queue.add(item, priority());
				case 1 -> queue.addAfter(item, Duration.ofMillis(ThreadLocalRandom.current().nextInt(50)), priority());
				default -> queue.addRateLimited(item, priority());
			}
			if (i % 10 == 0) {
				// A duplicate while it may be ready, waiting or held.
				handles.get((i + 1) % 2).add("item-" + ThreadLocalRandom.current().nextInt(i + 1), priority());
			}
		}
		try {
			await().atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> owed.isEmpty() && holders.isEmpty() && handles.get(0).size() == 0
						&& handles.get(0).stats().waiting() == 0 && handles.get(0).stats().processing() == 0);
		}
		finally {
			stop.set(true);
			for (Thread consumer : consumers) {
				consumer.join(5_000);
			}
		}
		assertThat(violations).as("never two holders").isEmpty();
		assertThat(handedOut.get()).isGreaterThanOrEqualTo(ITEMS);
		for (PriorityQueue<String> queue : handles) {
			queue.shutDown();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> RedisFixture.timer((RedisWorkQueue<?>) queue.capability(SharedQueue.class).orElseThrow())
					.stopped());
		}
		List<String> left = new ArrayList<>();
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			KeyScanCursor<String> page = this.redis.redis()
				.scan(cursor, ScanArgs.Builder.matches(this.redis.prefix + "*").limit(500));
			left.addAll(page.getKeys());
			cursor = page;
		}
		while (!cursor.isFinished());
		assertThat(left).as("nothing left in Redis at quiescence but the queue's mark, which stays")
			.containsExactly(this.redis.key("stress", "mark"));
	}

}
