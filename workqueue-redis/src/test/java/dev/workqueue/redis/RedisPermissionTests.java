package dev.workqueue.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.store.ReadySignal;
import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
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
	void aUserWhoMayNotBlockOnTheWakeListGetsItemsByTheNoticesInstead() throws Exception {
		redis().aclSetuser("no-blocking",
				new AclSetuserArgs().on()
					.addPassword(PASSWORD)
					.allKeys()
					.allChannels()
					.allCommands()
					.removeCommand(CommandType.BLPOP));
		RedisClient limited = clientOf("no-blocking");
		WorkQueue<String> consumer = builder(limited, "orders").heartbeat(Duration.ofMinutes(5)).buildQueue();
		WorkQueue<String> producer = builder(clientOf("no-blocking"), "orders").buildQueue();
		try {
			for (String item : List.of("a", "b")) {
				AtomicReference<String> taken = new AtomicReference<>();
				Thread waiting = new Thread(() -> {
					try {
						taken.set(consumer.poll(LONG));
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				waiting.start();
				await().atMost(LONG).until(() -> waiting.getState() == Thread.State.TIMED_WAITING);
				producer.add(item);
				// Within a few seconds, not the heartbeat's minutes.
				waiting.join(5_000);
				assertThat(taken).hasValue(item);
				consumer.done(item);
			}
		}
		finally {
			consumer.shutDown();
			producer.shutDown();
		}
	}

	@Test
	void buildsFailedForLackOfChannelsLeaveNoConnectionOpen() {
		assertFailedBuildsLeaveNoConnectionOpen(userWithoutChannels());
	}

	private void assertFailedBuildsLeaveNoConnectionOpen(RedisClient limited) {
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
	void aUserWhoMaySubscribeButNotPublishFailsTheBuildNamingPublishTheChannelAndTheUser() {
		redis().aclSetuser("no-publish",
				new AclSetuserArgs().on()
					.addPassword(PASSWORD)
					.allKeys()
					.allChannels()
					.allCommands()
					.removeCommand(CommandType.PUBLISH));
		RedisClient limited = clientOf("no-publish");
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> builder(limited, "orders").buildQueue())
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION))
			.withMessageContaining("may not PUBLISH to " + QueueKeys.of("workqueue:", "orders").channel())
			.withMessageContaining("user 'no-publish'")
			.withMessageContaining("Queue 'orders'");
	}

	@Test
	void buildsFailedForLackOfEvalshaLeaveNoConnectionOpen() {
		assertFailedBuildsLeaveNoConnectionOpen(userWithoutScripts());
	}

	@Test
	void aQueueTheUserMayUseStillWakesOnNoticesAfterADeniedBuildAndAReconnect() throws Exception {
		redis().aclSetuser("one-queue",
				new AclSetuserArgs().on()
					.addPassword(PASSWORD)
					.allKeys()
					.channelPattern(QueueKeys.key("workqueue:", "allowed", "*"))
					.allCommands());
		RedisClient limited = clientOf("one-queue");
		// The timer's heartbeat and renewals so far apart that only a notice can wake a
		// waiting get within the test.
		WorkQueue<String> allowed = builder(limited, "allowed").heartbeat(Duration.ofMinutes(10))
			.lease(Duration.ofMinutes(10))
			.buildQueue();
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> builder(limited, "denied").buildQueue())
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(Reason.NO_PERMISSION));
		RedisClient other = RedisClient.create(this.server.uri());
		this.clients.add(other);
		WorkQueue<String> adder = builder(other, "allowed").buildQueue();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			assertThat(takeWhileAdding(executor, allowed, adder, "x")).isEqualTo("x");
			allowed.done("x");

			// Both connections of the limited user drop; the client reconnects and
			// subscribes again.
			redis().clientKill(KillArgs.Builder.user("one-queue"));
			await().atMost(LONG)
				.untilAsserted(() -> assertThat(redis().clientList())
					.as("the limited user's pub/sub connection is subscribed again")
					.containsPattern("sub=1 .*user=one-queue"));
			assertThat(takeWhileAdding(executor, allowed, adder, "y")).isEqualTo("y");
			allowed.done("y");
		}
		finally {
			executor.shutdownNow();
			adder.shutDown();
			allowed.shutDown();
		}
	}

	private static boolean isAwaitingNotice(Thread thread) {
		return thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().equals(ReadySignal.class.getName())
					&& frame.getMethodName().equals("awaitNotice"));
	}

	/** Starts a get on {@code taker}, then adds {@code item} with {@code adder}. */
	private static String takeWhileAdding(ExecutorService executor, WorkQueue<String> taker, WorkQueue<String> adder,
			String item) throws Exception {
		AtomicReference<Thread> consumer = new AtomicReference<>();
		Future<String> taken = executor.submit(() -> {
			consumer.set(Thread.currentThread());
			return taker.get();
		});
		// Added only once the get waits for a notice, having found nothing.
		await().atMost(LONG).until(() -> consumer.get() != null && isAwaitingNotice(consumer.get()));
		adder.add(item);
		return taken.get(5, TimeUnit.SECONDS);
	}

}
