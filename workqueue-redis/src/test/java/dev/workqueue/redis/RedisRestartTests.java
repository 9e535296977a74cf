package dev.workqueue.redis;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The test's own Redis, with an append-only file synced on every write, stopped and
 * started again mid-run: clear errors during the outage, recovery without help, and no
 * acknowledged add lost.
 */
@RequiresRedis
class RedisRestartTests {

	private RedisServers.Server server;

	private RedisClient client;

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start("--appendonly", "yes", "--appendfsync", "always");
		this.client = RedisClient.create(this.server.uri());
	}

	@AfterEach
	void stop() {
		if (this.client != null) {
			this.client.shutdown();
		}
		if (this.server != null) {
			this.server.kill();
		}
	}

	@Test
	void aRestartOfRedisLosesNoAcknowledgedAddAndTheQueueRecoversByItself() throws Exception {
		WorkQueue<String> queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("restart")
			.commandTimeout(Duration.ofMillis(500))
			.buildQueue();
		Set<String> acknowledged = new HashSet<>();
		for (int i = 0; i < 100; i++) {
			queue.add("before-" + i);
			acknowledged.add("before-" + i);
		}
		Set<String> taken = new HashSet<>();
		for (int i = 0; i < 10; i++) {
			String item = queue.poll(Duration.ZERO);
			taken.add(item);
			queue.done(item);
		}
		this.server.stop();
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.add("during"))
			.withMessageContaining("Queue 'restart'");
		this.server.startProcess();
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
			queue.add("after");
			return true;
		});
		acknowledged.add("after");
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
			String item;
			while ((item = queue.poll(Duration.ZERO)) != null) {
				taken.add(item);
				queue.done(item);
			}
			return taken.containsAll(acknowledged);
		});
		assertThat(taken).containsAll(acknowledged);
		queue.shutDown();
	}

}
