package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A codec that encodes equal items differently breaks its contract (the encoding is the
 * item's identity in Redis): a handle that meets a second encoding of an item one of its
 * workers holds says so once, naming the codec and both encodings, keeps the worker's
 * lease, and holds the copy until the worker is done, so a worker that gets again waits
 * instead of meeting the copy again and again.
 */
@RequiresRedis
class RedisCodecConsistencyTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	/** Encodes each item with a count: equal items, different strings. */
	private final ItemCodec<String> countingCodec = new ItemCodec<>() {

		private final AtomicInteger encoded = new AtomicInteger();

		@Override
		public String encode(String item) {
			return item + "#" + this.encoded.incrementAndGet();
		}

		@Override
		public String decode(String encoded) {
			return encoded.substring(0, encoded.lastIndexOf('#'));
		}

		@Override
		public String toString() {
			return "CountingCodec";
		}

	};

	/** What the queue's loggers (Redis's and the engine's) say at ERROR (SEVERE). */
	private final List<LogRecord> errors = new CopyOnWriteArrayList<>();

	private final Logger packageLogger = Logger.getLogger("dev.workqueue");

	private final Handler capture = new Handler() {

		@Override
		public void publish(LogRecord record) {
			if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
				RedisCodecConsistencyTests.this.errors.add(record);
			}
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	@AfterEach
	void close() throws Exception {
		this.packageLogger.removeHandler(this.capture);
		this.redis.close();
	}

	@Test
	void aSecondEncodingOfAHeldItemIsNamedOnceAndWaitsForTheWorkerWhileAnotherWorkerWaits() throws Exception {
		DelayingQueue<String> queue = this.redis.track(RedisWorkQueues.builder(this.redis.client, this.countingCodec)
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.lease(Duration.ofSeconds(3))
			.buildDelayingQueue());
		this.packageLogger.addHandler(this.capture);
		String leases = this.redis.key("q", "leases");
		queue.add("x");
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		String tokenOfWorker = this.redis.redis().hget(leases, "x#1");

		// A worker loop that gets again whenever a get fails.
		AtomicInteger attempts = new AtomicInteger();
		CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> {
			while (true) {
				attempts.incrementAndGet();
				try {
					return queue.get();
				}
				catch (IllegalStateException ex) {
					// Retried, as a worker loop does.
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return null;
				}
			}
		});
		await().atMost(SOON).until(() -> this.redis.redis().hexists(leases, "x#2"));
		assertThat(this.redis.redis().hget(leases, "x#1")).as("the worker's lease stands").isEqualTo(tokenOfWorker);
		assertThat(this.redis.redis().llen(this.redis.key("q", "queue"))).as("the copy is held, not queued").isZero();
		assertThat(second).as("the other worker waits").isNotDone();

		queue.done("x");
		assertThat(second.get(SOON.toSeconds(), TimeUnit.SECONDS)).as("the copy, once the worker is done")
			.isEqualTo("x");
		assertThat(attempts).as("one get: it waited for the worker instead of failing again and again").hasValue(1);
		assertThat(this.errors).as("said once, naming the codec and both encodings")
			.singleElement()
			.satisfies((record) -> assertThat(record.getMessage()).contains("CountingCodec")
				.contains("encodes equal items differently")
				.contains("'x#2'")
				.contains("'x#1'"));
		assertThat(this.redis.redis().hgetall(leases)).as("the copy's lease only")
			.containsOnlyKeys("x#2")
			.doesNotContainEntry("x#2", tokenOfWorker);
		queue.done("x");
		assertThat(this.redis.redis().exists(leases, this.redis.key("q", "queue"))).isZero();
		assertThat(queue.poll(Duration.ZERO)).isNull();
	}

}
