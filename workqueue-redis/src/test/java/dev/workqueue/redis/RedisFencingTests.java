package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fencing holds across a restart of a Redis without persistence, which forgets every
 * lease: a holder from before the restart, whose token the new server never saw, can
 * neither renew nor end the lease another handle took after it. Tokens are made by the
 * handles and never repeat, so the new lease's token cannot be the old one's.
 */
@RequiresRedis
class RedisFencingTests {

	private static final String NAME = "fenced";

	private static final Duration LONG = Duration.ofSeconds(20);

	private final FakeClock clock = new FakeClock();

	/** The renewals' reports, where a holder says it lost a lease. */
	private final Logger timerLogger = Logger.getLogger(QueueTimer.class.getName());

	private final List<String> timerMessages = new CopyOnWriteArrayList<>();

	private final Handler capture = new Handler() {

		@Override
		public void publish(LogRecord record) {
			RedisFencingTests.this.timerMessages.add(String.valueOf(record.getMessage()));
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	private RedisServers.Server server;

	private final List<RedisClient> clients = new CopyOnWriteArrayList<>();

	private final List<DelayingQueue<String>> queues = new CopyOnWriteArrayList<>();

	private StatefulRedisConnection<String, String> admin;

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start("--appendonly", "no");
		this.admin = client().connect();
		this.timerLogger.addHandler(this.capture);
	}

	@AfterEach
	void stop() {
		this.timerLogger.removeHandler(this.capture);
		this.queues.forEach(DelayingQueue::shutDown);
		this.clients.forEach(RedisClient::shutdown);
		if (this.server != null) {
			this.server.kill();
		}
	}

	private RedisClient client() {
		RedisClient client = RedisClient.create(this.server.uri());
		this.clients.add(client);
		return client;
	}

	/** A handle of its own client, as another instance would have. */
	private DelayingQueue<String> handle(Duration lease) {
		DelayingQueue<String> queue = RedisWorkQueues.builder(client(), ItemCodec.strings())
			.name(NAME)
			.clock(this.clock)
			.lease(lease)
			.heartbeat(Duration.ofMillis(200))
			.commandTimeout(Duration.ofSeconds(1))
			.buildDelayingQueue();
		this.queues.add(queue);
		return queue;
	}

	private RedisCommands<String, String> redis() {
		return this.admin.sync();
	}

	private static String key(String part) {
		return QueueKeys.key("workqueue:", NAME, part);
	}

	private boolean reportedLost() {
		return this.timerMessages.stream().anyMatch((message) -> message.contains("lost the lease of 1 item"));
	}

	@Test
	void aHolderFromBeforeARestartWithoutPersistenceCanNeitherRenewNorEndTheLeaseTakenAfterIt() throws Exception {
		// A renews every second; B's lease is so long that it never renews during the
		// test, so any write to x's expiry would be A's.
		DelayingQueue<String> a = handle(Duration.ofSeconds(3));
		a.add("x");
		assertThat(a.poll(Duration.ZERO)).isEqualTo("x");
		String tokenOfA = redis().hget(key("leases"), "x");
		assertThat(tokenOfA).isNotNull();

		this.server.restart();
		// Nothing kept: the new server never saw A's lease.
		await().atMost(LONG).ignoreExceptions().until(() -> redis().exists(key("leases"), key("processing")) == 0);

		DelayingQueue<String> b = handle(Duration.ofSeconds(30));
		await().atMost(LONG).ignoreExceptions().until(() -> {
			b.add("x");
			return true;
		});
		assertThat(b.poll(Duration.ZERO)).isEqualTo("x");
		String tokenOfB = redis().hget(key("leases"), "x");
		Double expiryOfB = redis().zscore(key("processing"), "x");
		assertThat(tokenOfB).as("a token never seen before").isNotNull().isNotEqualTo(tokenOfA);
		assertThat(expiryOfB).isNotNull();

		// A's renewal comes due: it must find its lease lost and leave B's alone. Its
		// first try may meet a connection not yet back: step on until it reports.
		await().atMost(LONG).ignoreExceptions().until(() -> {
			a.size();
			return true;
		});
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(LONG).pollInterval(Duration.ofMillis(200)).until(() -> {
			if (reportedLost() || !expiryOfB.equals(redis().zscore(key("processing"), "x"))) {
				return true;
			}
			this.clock.step(Duration.ofMillis(50));
			return false;
		});
		assertThat(redis().zscore(key("processing"), "x")).as("A's renewal did not touch B's expiry")
			.isEqualTo(expiryOfB);
		assertThat(reportedLost()).as("A's renewal found its lease lost").isTrue();
		assertThat(this.clock.nanoTime()).as("B never had to renew").isLessThan(Duration.ofSeconds(9).toNanos());
		assertThat(redis().hget(key("leases"), "x")).isEqualTo(tokenOfB);

		DelayingQueue<String> c = handle(Duration.ofSeconds(30));
		assertThat(c.poll(Duration.ZERO)).as("B holds x").isNull();

		// A's late done: fenced off.
		a.done("x");
		assertThat(redis().hget(key("leases"), "x")).isEqualTo(tokenOfB);
		assertThat(redis().zscore(key("processing"), "x")).isEqualTo(expiryOfB);
		assertThat(b.stats().processing()).isOne();
		assertThat(c.poll(Duration.ZERO)).as("still B's").isNull();
		assertThat(redis().llen(key("queue"))).isZero();

		b.done("x");
		assertThat(redis().exists(key("leases"), key("processing"), key("dirty"), key("queue"))).as("x is gone")
			.isZero();
		assertThat(c.poll(Duration.ZERO)).isNull();
	}

}
