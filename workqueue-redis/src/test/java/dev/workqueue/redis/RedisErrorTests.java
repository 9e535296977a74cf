package dev.workqueue.redis;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.redis.RedisQueueException.Reason;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Errors say what happened: a Redis out of memory refuses an add with
 * {@link Reason#OUT_OF_MEMORY} and nothing half-written, while consumers still get and
 * finish items, and the same add works once memory is free; a Redis nobody listens for
 * does not fail the build, but every call fails with {@link Reason#UNREACHABLE} naming
 * the queue and the port, and the queue says it is unreachable.
 */
@RequiresRedis
class RedisErrorTests {

	private static final Duration LONG = Duration.ofSeconds(20);

	private RedisServers.Server server;

	private RedisClient client;

	private RedisClient adminClient;

	private WorkQueue<String> queue;

	@AfterEach
	void stop() {
		if (this.queue != null) {
			this.queue.shutDown();
		}
		if (this.client != null) {
			this.client.shutdown();
		}
		if (this.adminClient != null) {
			this.adminClient.shutdown();
		}
		if (this.server != null) {
			this.server.kill();
		}
	}

	@Test
	void anAddRefusedForLackOfMemoryWritesNothingAndWorksOnceMemoryIsFree() throws Exception {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start("--maxmemory", "2mb", "--maxmemory-policy", "noeviction");
		this.client = RedisClient.create(this.server.uri());
		this.adminClient = RedisClient.create(this.server.uri());
		StatefulRedisConnection<String, String> admin = this.adminClient.connect();
		RedisCommands<String, String> redis = admin.sync();
		this.queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("full")
			.commandTimeout(Duration.ofSeconds(2))
			.buildQueue();
		for (int i = 0; i < 5; i++) {
			this.queue.add("item-" + i);
		}
		String queueKey = QueueKeys.key("workqueue:", "full", "queue");
		String dirtyKey = QueueKeys.key("workqueue:", "full", "dirty");

		// Fill memory until Redis refuses even a tiny write: a refused big write alone
		// proves little, since its own query buffer counted against the limit.
		String chunk = "f".repeat(64 * 1024);
		boolean full = false;
		for (int i = 0; i < 256 && !full; i++) {
			try {
				redis.set("probe", "1");
			}
			catch (RedisCommandExecutionException ex) {
				assertThat(ex).hasMessageStartingWith("OOM");
				full = true;
				continue;
			}
			try {
				redis.append("filler", chunk);
			}
			catch (RedisCommandExecutionException ex) {
				assertThat(ex).hasMessageStartingWith("OOM");
			}
		}
		assertThat(full).as("the filler reached maxmemory").isTrue();

		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> this.queue.add("new"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.OUT_OF_MEMORY))
			.withMessageContaining("out of memory")
			.withMessageContaining("Queue 'full'");
		assertThat(redis.hexists(dirtyKey, "new")).as("not marked dirty").isFalse();
		assertThat(redis.lrange(queueKey, 0, -1)).as("not queued")
			.containsExactly("item-0", "item-1", "item-2", "item-3", "item-4");

		// Consumers still drain the backlog: get and done run out of memory, and the
		// item done is not handed out again.
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("item-0");
		this.queue.done("item-0");
		assertThat(redis.exists(QueueKeys.key("workqueue:", "full", "leases"))).isZero();
		assertThat(redis.exists(QueueKeys.key("workqueue:", "full", "grants"))).isZero();
		assertThat(redis.lrange(queueKey, 0, -1)).containsExactly("item-1", "item-2", "item-3", "item-4");
		assertThatExceptionOfType(RedisCommandExecutionException.class).as("still out of memory")
			.isThrownBy(() -> redis.set("probe", "1"));

		redis.del("filler", "probe");
		await().atMost(LONG).ignoreExceptions().until(() -> {
			this.queue.add("new");
			return true;
		});
		assertThat(redis.hexists(dirtyKey, "new")).isTrue();
		assertThat(redis.lrange(queueKey, 0, -1)).containsExactly("item-1", "item-2", "item-3", "item-4", "new");
	}

	@Test
	void aServerNobodyListensForDoesNotFailTheBuildButEveryCallAndTheQueueSayUnreachable() throws Exception {
		int port = RedisServers.freePort();
		this.client = RedisClient.create("redis://127.0.0.1:" + port);
		this.queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("nowhere")
			.commandTimeout(Duration.ofSeconds(1))
			.heartbeat(Duration.ofMillis(200))
			.buildQueue();

		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> this.queue.add("x"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.UNREACHABLE))
			.withMessageContaining("Queue 'nowhere'")
			.withMessageContaining(":" + port);
		SharedWorkQueue shared = this.queue.capability(SharedWorkQueue.class).orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> !shared.reachable());
	}

}
