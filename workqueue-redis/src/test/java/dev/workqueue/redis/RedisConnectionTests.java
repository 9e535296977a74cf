package dev.workqueue.redis;

import java.lang.Thread.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Every queue and limiter on one client shares one command connection, one pub/sub
 * connection, one connection for its consumers' blocking wait and one timer thread,
 * however many queues there are; the last queue shut down closes them.
 */
@RequiresRedis
class RedisConnectionTests {

	private final RedisFixture redis = new RedisFixture();

	private final String clientName = "wq-conn-" + UUID.randomUUID();

	private final RedisClient client = RedisClient
		.create(RedisURI.builder(RedisServers.shared()).withClientName(this.clientName).build());

	@AfterEach
	void close() throws Exception {
		this.client.shutdown();
		this.redis.close();
	}

	private long connections() {
		return this.redis.redis()
			.clientList()
			.lines()
			.filter((line) -> line.contains(" name=" + this.clientName + " "))
			.count();
	}

	@Test
	void sixQueuesAndTheirLimitersShareTwoConnectionsAndOneTimerThread() throws Exception {
		List<RateLimitingQueue<String>> queues = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			String name = "q" + i;
			RateLimiter<String> limiter = RedisRateLimiters.builder(this.client, ItemCodec.strings())
				.keyPrefix(this.redis.prefix)
				.name(name)
				.defaultControllerRateLimiter();
			queues.add(RedisWorkQueues.builder(this.client, ItemCodec.strings())
				.keyPrefix(this.redis.prefix)
				.name(name)
				.buildRateLimitingQueue(limiter));
		}
		for (RateLimitingQueue<String> queue : queues) {
			queue.add("x");
			assertThat(queue.poll(Duration.ofSeconds(5))).isEqualTo("x");
			queue.addRateLimited("y");
			queue.done("x");
			queue.forget("y");
		}
		assertThat(connections()).as("one for commands, one for pub/sub").isEqualTo(2);
		List<TimerThread> timers = queues.stream()
			.map((queue) -> RedisFixture
				.timer((RedisWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow())
				.thread())
			.distinct()
			.toList();
		assertThat(timers).hasSize(1);
		assertThat(timers.get(0).thread()).isNotNull();
		queues.forEach(RateLimitingQueue::shutDown);
		await().atMost(Duration.ofSeconds(10)).until(() -> connections() == 0 && timers.get(0).thread() == null);
	}

	@Test
	void clientsThatOnlyUsedSharedLimitersAreNotKeptOnceShutDown() {
		List<RedisClient> clients = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			RedisClient limitersOnly = RedisClient.create(RedisServers.shared());
			clients.add(limitersOnly);
			RateLimiter<String> limiter = RedisRateLimiters.builder(limitersOnly, ItemCodec.strings())
				.keyPrefix(this.redis.prefix)
				.name("q" + i)
				.bucket(100, 10);
			assertThat(limiter.when("x")).isZero();
			assertThat(RedisLink.isRegistered(limitersOnly)).isTrue();
			limitersOnly.shutdown();
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(clients).noneMatch(RedisLink::isRegistered));
	}

	@Test
	void aClientWhoseLimitersNeverConnectedIsNotKept() throws Exception {
		RedisClient nowhere = RedisClient.create("redis://127.0.0.1:" + RedisServers.freePort());
		try {
			RateLimiter<String> limiter = RedisRateLimiters.builder(nowhere, ItemCodec.strings())
				.name("q")
				.bucket(100, 10);
			assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> limiter.when("x"));
			assertThat(RedisLink.isRegistered(nowhere)).isFalse();
		}
		finally {
			nowhere.shutdown();
		}
	}

	@Test
	void aHundredQueuesWithWaitingConsumersShareThreeConnectionsAndEachWakesAtOnce() throws Exception {
		List<WorkQueue<String>> queues = new ArrayList<>();
		List<String> handedOut = new CopyOnWriteArrayList<>();
		List<Thread> consumers = new ArrayList<>();
		AtomicBoolean stop = new AtomicBoolean();
		try {
			for (int i = 0; i <= 100; i++) {
				WorkQueue<String> queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
					.keyPrefix(this.redis.prefix)
					.name("q" + i)
					.buildQueue();
				queues.add(queue);
				if (i < 100) {
					consumers.add(consumer(queue, handedOut, stop));
				}
			}
			await().atMost(Duration.ofSeconds(20))
				.until(() -> consumers.stream().allMatch((consumer) -> consumer.getState() == State.TIMED_WAITING));
			for (int i : new int[] { 0, 57, 99 }) {
				queues.get(i).add("x" + i);
				await().atMost(Duration.ofSeconds(5)).until(() -> handedOut.contains("x" + i));
			}
			// The client's one wait covers the hundred queues now: a consumer of one more
			// starts waiting, and that wait restarts at once to cover it too (else its
			// item would wait for the wait's 10 s to end).
			consumers.add(consumer(queues.get(100), handedOut, stop));
			await().atMost(Duration.ofSeconds(5)).until(() -> consumers.get(100).getState() == State.TIMED_WAITING);
			queues.get(100).add("x100");
			await().atMost(Duration.ofSeconds(3)).until(() -> handedOut.contains("x100"));
			assertThat(connections()).as("commands, pub/sub, and the consumers' blocking wait").isEqualTo(3);
			assertThat(handedOut).containsExactly("x0", "x57", "x99", "x100");
		}
		finally {
			stop.set(true);
			queues.forEach(WorkQueue::shutDown);
			for (Thread consumer : consumers) {
				consumer.join(10_000);
			}
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> connections() == 0);
	}

	/** A worker that polls the queue until stopped, marking each item done. */
	private static Thread consumer(WorkQueue<String> queue, List<String> handedOut, AtomicBoolean stop) {
		Thread consumer = new Thread(() -> {
			try {
				while (!stop.get()) {
					String item = queue.poll(Duration.ofSeconds(30));
					if (item != null) {
						handedOut.add(item);
						queue.done(item);
					}
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		consumer.start();
		return consumer;
	}

}
