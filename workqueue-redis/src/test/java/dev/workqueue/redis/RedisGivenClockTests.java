package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Clocks given to the builders of two instances, whose readings count from origins a year
 * apart (as two JVMs' {@link Clock#system()} count from their own start), are each
 * anchored on the Redis server's time ({@link ClockAnchor}), so the instances agree: an
 * add is visible to the other at once, a delay falls due on time for the other, never
 * early, a live lease is never reaped by the other, and a shared bucket is shared. A
 * handle built while Redis is down anchors its clock at its first use.
 */
@RequiresRedis
class RedisGivenClockTests {

	private static final long YEAR_NANOS = Duration.ofDays(365).toNanos();

	private static final Duration SOON = Duration.ofSeconds(5);

	private final RedisFixture redis = new RedisFixture();

	/** This JVM's system clock, as a JVM started long ago reads it. */
	private final Clock older = () -> Clock.system().nanoTime() + YEAR_NANOS;

	/** The same time line, as a JVM started just now reads it. */
	private final Clock younger = () -> Clock.system().nanoTime();

	private RedisServers.Server server;

	private RedisClient client;

	@AfterEach
	void close() throws Exception {
		this.redis.close();
		if (this.client != null) {
			this.client.shutdown();
		}
		if (this.server != null) {
			this.server.kill();
		}
	}

	private DelayingQueue<String> handle(Clock clock) {
		return this.redis
			.track(this.redis.builder("agreed").clock(clock).lease(Duration.ofSeconds(2)).buildDelayingQueue());
	}

	@Test
	void anAddByOneInstanceIsVisibleToTheOtherAtOnce() throws InterruptedException {
		DelayingQueue<String> older = handle(this.older);
		DelayingQueue<String> younger = handle(this.younger);
		older.add("from the older");
		assertThat(younger.poll(Duration.ZERO)).isEqualTo("from the older");
		younger.add("from the younger");
		assertThat(older.poll(Duration.ZERO)).isEqualTo("from the younger");
		older.done("from the younger");
		younger.done("from the older");
	}

	@Test
	void aDelayMadeByOneInstanceIsNotDueEarlyForTheOther() throws InterruptedException {
		DelayingQueue<String> older = handle(this.older);
		DelayingQueue<String> younger = handle(this.younger);
		long addedNanos = Clock.system().nanoTime();
		younger.addAfter("delayed", Duration.ofMillis(500));
		assertThat(older.poll(Duration.ZERO)).as("not due yet").isNull();
		await().atMost(SOON).until(() -> "delayed".equals(older.poll(Duration.ZERO)));
		assertThat(Clock.system().nanoTime() - addedNanos).as("not early")
			.isGreaterThanOrEqualTo(Duration.ofMillis(500).toNanos());
		older.done("delayed");
	}

	@Test
	void aDelayMadeByOneInstanceFallsDueOnTimeForTheOther() throws InterruptedException {
		DelayingQueue<String> older = handle(this.older);
		DelayingQueue<String> younger = handle(this.younger);
		older.addAfter("delayed", Duration.ofMillis(500));
		// Only the younger instance is left to move it once due.
		older.shutDown();
		assertThat(younger.poll(Duration.ZERO)).as("not due yet").isNull();
		await().atMost(SOON).until(() -> "delayed".equals(younger.poll(Duration.ZERO)));
		younger.done("delayed");
	}

	@Test
	void aLiveLeaseOfOneInstanceIsNeverReapedByTheOther() throws InterruptedException {
		DelayingQueue<String> younger = handle(this.younger);
		DelayingQueue<String> older = handle(this.older);
		younger.add("held");
		assertThat(younger.poll(Duration.ZERO)).isEqualTo("held");
		String leases = this.redis.key("agreed", "leases");
		String token = this.redis.redis().hget(leases, "held");
		// Over four renewals of the younger instance's 2 s lease, the older one's timer
		// and gets leave it alone.
		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> {
			return token.equals(this.redis.redis().hget(leases, "held")) && older.poll(Duration.ZERO) == null;
		});
		younger.done("held");
		assertThat(older.stats().processing()).isZero();
	}

	@Test
	void aSharedBucketEmptiedByOneInstanceIsEmptyForTheOther() {
		RateLimiter<String> older = this.redis.builder("agreed").clock(this.older).rateLimiters().bucket(1, 1);
		RateLimiter<String> younger = this.redis.builder("agreed").clock(this.younger).rateLimiters().bucket(1, 1);
		assertThat(younger.when("x")).as("the burst").isZero();
		assertThat(older.when("x")).as("the next token, a second after the burst's")
			.isGreaterThan(Duration.ofMillis(800));
	}

	@Test
	void aHandleBuiltWhileRedisIsDownAnchorsItsClockAtItsFirstUse() throws Exception {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start();
		this.server.stop();
		this.client = RedisClient.create(this.server.uri());
		// A clock object of its own: no handle of this JVM anchored it yet.
		Clock own = () -> Clock.system().nanoTime() + YEAR_NANOS;
		DelayingQueue<String> queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("late")
			.clock(own)
			.commandTimeout(Duration.ofSeconds(1))
			.buildDelayingQueue();
		try {
			this.server.startProcess();
			await().atMost(SOON).ignoreExceptions().until(() -> {
				queue.addAfter("in a minute", Duration.ofMinutes(1));
				return true;
			});
			try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
				Double score = connection.sync().zscore(QueueKeys.key("workqueue:", "late", "waiting"), "in a minute");
				List<String> time = connection.sync().time();
				long serverMicros = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
				assertThat(score).isNotNull();
				assertThat(score - serverMicros).as("due a minute after the add, on the server's time")
					.isBetween(55e6, 60e6);
			}
		}
		finally {
			queue.shutDown();
		}
	}

}
