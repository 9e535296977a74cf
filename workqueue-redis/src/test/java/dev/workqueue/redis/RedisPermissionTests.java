package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.redis.RedisQueueException.Reason;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A user without a permission the queue needs fails the build with
 * {@link Reason#NO_PERMISSION}, naming the missing permission, the user and the queue;
 * and a failed build gives back every connection it opened, however often it is tried.
 */
@RequiresRedis
class RedisPermissionTests {

	private static final String PASSWORD = "secret-of-the-test";

	private static final Duration LONG = Duration.ofSeconds(20);

	private RedisServers.Server server;

	private RedisClient adminClient;

	private StatefulRedisConnection<String, String> admin;

	private final List<RedisClient> clients = new CopyOnWriteArrayList<>();

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start();
		this.adminClient = RedisClient.create(this.server.uri());
		this.admin = this.adminClient.connect();
	}

	@AfterEach
	void stop() {
		this.clients.forEach(RedisClient::shutdown);
		if (this.adminClient != null) {
			this.adminClient.shutdown();
		}
		if (this.server != null) {
			this.server.kill();
		}
	}

	private RedisCommands<String, String> redis() {
		return this.admin.sync();
	}

	private RedisClient clientOf(String user) {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost("127.0.0.1")
			.withPort(this.server.port())
			.withAuthentication(user, PASSWORD)
			.build());
		this.clients.add(client);
		return client;
	}

	private static RedisWorkQueues.Builder<String> builder(RedisClient client, String name) {
		return RedisWorkQueues.builder(client, ItemCodec.strings()).name(name).commandTimeout(Duration.ofSeconds(2));
	}

	/** The clients connected to the server, the admin's own connection included. */
	private long connectedClients() {
		String info = redis().info("clients");
		return info.lines()
			.filter((line) -> line.startsWith("connected_clients:"))
			.mapToLong((line) -> Long.parseLong(line.substring("connected_clients:".length()).trim()))
			.findFirst()
			.orElseThrow();
	}

	private RedisClient userWithoutChannels() {
		redis().aclSetuser("no-channels",
				new AclSetuserArgs().on().addPassword(PASSWORD).allKeys().resetChannels().allCommands());
		return clientOf("no-channels");
	}

	private RedisClient userWithoutScripts() {
		redis().aclSetuser("no-scripts",
				new AclSetuserArgs().on()
					.addPassword(PASSWORD)
					.allKeys()
					.allChannels()
					.allCommands()
					.removeCommand(CommandType.EVALSHA)
					.removeCommand(CommandType.EVAL));
		return clientOf("no-scripts");
	}

	@Test
	void aUserWithoutChannelsFailsTheBuildNamingSubscribeTheUserAndTheQueue() {
		RedisClient limited = userWithoutChannels();
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> builder(limited, "orders").buildQueue())
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION))
			.withMessageContaining("may not SUBSCRIBE")
			.withMessageContaining("user 'no-channels'")
			.withMessageContaining("Queue 'orders'");
	}

	@Test
	void buildsFailedForLackOfChannelsLeaveNoConnectionOpen() {
		RedisClient limited = userWithoutChannels();
		long before = connectedClients();
		for (int i = 0; i < 6; i++) {
			assertThatExceptionOfType(RedisQueueException.class)
				.isThrownBy(() -> builder(limited, "orders").buildQueue())
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION));
		}
		await().atMost(LONG)
			.untilAsserted(() -> assertThat(connectedClients())
				.as("the failed builds' connections are closed; open now:%n%s", redis().clientList())
				.isEqualTo(before));
	}

	@Test
	void aUserWithoutEvalshaFailsTheBuildNamingEvalshaTheUserAndTheQueue() {
		RedisClient limited = userWithoutScripts();
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> builder(limited, "orders").buildQueue())
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION))
			.withMessageContaining("EVALSHA")
			.withMessageContaining("user 'no-scripts'")
			.withMessageContaining("Queue 'orders'");
	}

	@Test
	void buildsFailedForLackOfEvalshaLeaveNoConnectionOpen() {
		RedisClient limited = userWithoutScripts();
		long before = connectedClients();
		for (int i = 0; i < 6; i++) {
			assertThatExceptionOfType(RedisQueueException.class)
				.isThrownBy(() -> builder(limited, "orders").buildQueue())
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION));
		}
		await().atMost(LONG)
			.untilAsserted(() -> assertThat(connectedClients())
				.as("the failed builds' connections are closed; open now:%n%s", redis().clientList())
				.isEqualTo(before));
	}

}
