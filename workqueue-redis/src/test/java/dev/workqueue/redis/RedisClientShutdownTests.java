package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An application that shuts its Lettuce client down while a handle still holds items: the
 * handle says so once, stops its timed work, and every later call throws a
 * {@link RedisQueueException} that says what happened, never the client's raw exception,
 * and nothing ever says Redis is out of reach. A client on resources of its own stops its
 * event loops with it; one on shared resources (as Spring Boot's, a bean that outlives
 * the client) keeps them, so every command sent after its shutdown is refused as
 * "Connection is closed" through its answer: the case of a tick sent while a client shuts
 * down, made certain.
 */
@RequiresRedis
class RedisClientShutdownTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private static final String QUEUE = "held-at-client-shutdown";

	private final RedisFixture redis = new RedisFixture();

	/** Resources the test owns, for the client that shares them. */
	private final ClientResources resources = ClientResources.create();

	private RedisClient client;

	/** What the queue's loggers say, from its timer thread and its callers. */
	private final List<LogRecord> records = new CopyOnWriteArrayList<>();

	private final Logger packageLogger = Logger.getLogger("dev.workqueue.redis");

	private final Handler capture = new Handler() {

		@Override
		public void publish(LogRecord record) {
			RedisClientShutdownTests.this.records.add(record);
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
		if (this.client != null) {
			this.client.shutdown();
		}
		this.resources.shutdown().get();
		this.redis.close();
	}

	/**
	 * The warnings about this test's queue (the handler hears the whole package, where
	 * the timer of an earlier test's queue may still be winding down).
	 */
	private long warnings() {
		return this.records.stream()
			.filter((record) -> record.getLevel().intValue() >= Level.WARNING.intValue())
			.filter((record) -> String.valueOf(record.getMessage()).contains("Queue '" + QUEUE + "'"))
			.count();
	}

	/** Records at SEVERE or above: a raw exception from the timer's thread. */
	private long severe() {
		return this.records.stream()
			.filter((record) -> record.getLevel().intValue() >= Level.SEVERE.intValue())
			.count();
	}

	@ParameterizedTest(name = "shared resources: {0}")
	@ValueSource(booleans = { false, true })
	void aClientShutDownUnderAHandleThatHoldsItemsIsReportedOnceAndEveryCallSaysSo(boolean sharedResources)
			throws Exception {
		this.client = sharedResources ? RedisClient.create(this.resources, RedisServers.shared())
				: RedisClient.create(RedisServers.shared());
		WorkQueue<String> queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name(QUEUE)
			.lease(Duration.ofSeconds(1))
			.heartbeat(Duration.ofMillis(100))
			.buildQueue();
		RedisWorkQueue<?> handle = (RedisWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow();
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		this.packageLogger.addHandler(this.capture);

		this.client.shutdown();

		await().atMost(SOON).until(() -> RedisFixture.timer(handle).stopped());
		Thread timerThread = RedisFixture.timer(handle).thread().thread();
		assertThat(timerThread).as("the timer's thread ends with its last job").isNull();
		assertThat(this.records).as("the shut-down client is never taken for Redis out of reach")
			.noneSatisfy((record) -> assertThat(record.getMessage()).contains("cannot reach"));
		assertThat(warnings()).as("said once").isOne();
		assertThat(severe()).as("no raw exception logged").isZero();
		assertThat(this.records)
			.anySatisfy((record) -> assertThat(record.getMessage()).contains("Queue '" + QUEUE + "'")
				.contains("the Lettuce client was shut down"));
		for (ThrowingCall call : List.<ThrowingCall>of(() -> queue.done("x"), () -> queue.add("y"),
				() -> queue.poll(Duration.ZERO), queue::size)) {
			assertThatExceptionOfType(RedisQueueException.class).isThrownBy(call::call)
				.withMessageContaining("Queue '" + QUEUE + "'")
				.withMessageContaining("client was shut down")
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(RedisQueueException.Reason.UNREACHABLE));
		}
		assertThat(warnings()).as("the calls throw, the log stays quiet").isOne();
		queue.shutDown();
	}

	@FunctionalInterface
	private interface ThrowingCall {

		void call() throws Exception;

	}

}
