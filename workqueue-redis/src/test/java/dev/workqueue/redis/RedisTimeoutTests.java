package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

import dev.workqueue.redis.RedisQueueException.Reason;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A get that times out leases nothing for good: when the paused server runs it late, the
 * item it leased to the timed-out call comes back to the ready list at once, not after
 * the lease. A bounded poll against a server that does not answer returns within its
 * timeout plus one command timeout, never waiting out the server.
 */
@RequiresRedis
class RedisTimeoutTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(200);

	private RedisServers.Server server;

	private RedisClient client;

	private RedisClient adminClient;

	private RedisCommands<String, String> admin;

	private WorkQueue<String> queue;

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start();
		this.client = RedisClient.create(this.server.uri());
		this.adminClient = RedisClient.create(this.server.uri());
		StatefulRedisConnection<String, String> connection = this.adminClient.connect();
		this.admin = connection.sync();
		this.queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("slow")
			.commandTimeout(COMMAND_TIMEOUT)
			.buildQueue();
	}

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

	/** Pauses the writes of every client; returns once the pause is in force. */
	private void pauseWrites(Duration pause) {
		io.lettuce.core.codec.StringCodec codec = io.lettuce.core.codec.StringCodec.UTF8;
		String reply = this.admin.dispatch(CommandType.CLIENT, new StatusOutput<>(codec),
				new CommandArgs<>(codec).add("PAUSE").add(pause.toMillis()).add("WRITE"));
		assertThat(reply).isEqualTo("OK");
	}

	private static String key(String part) {
		return QueueKeys.key("workqueue:", "slow", part);
	}

	@Test
	void aGetThatTimedOutHandsTheItemItLeasedLateBackAtOnceInItsPlace() throws Exception {
		this.queue.add("x");
		this.queue.add("y");
		this.queue.add("z");
		String queuedAt = this.admin.hget(key("dirty"), "x");
		pauseWrites(Duration.ofMillis(1500));

		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> this.queue.poll(Duration.ZERO))
			.withMessageContaining("Queue 'slow'")
			.withMessageContaining("timed out");

		// Once the pause ends the get runs and leases x to the timed-out call; the
		// hand-back queues x again with a new time in the dirty hash. Well under the 30 s
		// lease: the late lease is handed back, not left to run out.
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> !queuedAt.equals(this.admin.hget(key("dirty"), "x")) && this.admin.hlen(key("leases")) == 0
					&& this.admin.zcard(key("processing")) == 0);
		assertThat(this.admin.lrange(key("queue"), 0, -1)).as("back in its place in line")
			.containsExactly("x", "y", "z");
		for (String item : List.of("x", "y", "z")) {
			assertThat(this.queue.poll(Duration.ZERO)).isEqualTo(item);
			this.queue.done(item);
		}
	}

	@Test
	void anAddThatTimedOutSaysItMayHaveRunNotThatRedisIsUnreachable() {
		pauseWrites(Duration.ofMillis(1000));

		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> this.queue.add("late"))
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.TIMED_OUT))
			.withMessageContaining("Queue 'slow'")
			.withMessageContaining("timed out after " + COMMAND_TIMEOUT)
			.withMessageContaining("may have run")
			.withMessageNotContaining("cannot reach");
		// It did run, once the pause ended.
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.lrange(key("queue"), 0, -1).contains("late"));
	}

	@Test
	void aBoundedPollOnAPausedServerNeverWaitsOutThePause() throws Exception {
		pauseWrites(Duration.ofSeconds(3));
		long started = System.nanoTime();
		try {
			assertThat(this.queue.poll(Duration.ofMillis(300))).isNull();
		}
		catch (RedisQueueException ex) {
			assertThat(ex).hasMessageContaining("timed out");
		}
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		// Coarse: the contract is 300 ms plus one 200 ms command timeout; the rest is
		// slack for a loaded machine. What matters is that it is far below the 3 s pause.
		assertThat(took).isLessThan(Duration.ofSeconds(2));
	}

}
