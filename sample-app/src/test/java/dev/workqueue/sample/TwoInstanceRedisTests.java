package dev.workqueue.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.stream.IntStream;

import dev.workqueue.spring.worker.WorkerContainerRegistry;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample in the {@code redis} profile, sharing the queues and the
 * outbox: a burst posted to one is delivered exactly once across both, whichever takes
 * each target. The first instance's delivery workers are paused while the burst is
 * posted, so the second one delivers payloads it did not stage. One delivery attempt in
 * five fails and is retried. Needs the Redis on {@code 127.0.0.1:6379} (skipped loudly
 * without it, failed when {@code WORKQUEUE_REDIS_REQUIRED=true}).
 */
class TwoInstanceRedisTests {

	private static final String PREFIX = "workqueue-sample-test-" + UUID.randomUUID() + ":";

	private static final int PAYLOADS = 500;

	private static final int TARGETS = 20;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeAll
	static void redisAnswers() {
		boolean answers = answers();
		if (!answers && "true".equalsIgnoreCase(System.getenv("WORKQUEUE_REDIS_REQUIRED"))) {
			throw new IllegalStateException("No Redis on 127.0.0.1:6379, and the Redis tests are required");
		}
		if (!answers) {
			System.err.println("*** SKIPPING THE SAMPLE'S TWO-INSTANCE REDIS TEST: no Redis on 127.0.0.1:6379 ***");
		}
		assumeThat(answers).as("Redis on 127.0.0.1:6379").isTrue();
	}

	@AfterEach
	void stopAndDeleteKeys() {
		this.instances.forEach(ConfigurableApplicationContext::close);
		withRedis((redis) -> {
			List<String> keys = keys(redis, PREFIX + "*");
			if (!keys.isEmpty()) {
				redis.del(keys.toArray(String[]::new));
			}
			return null;
		});
	}

	@Test
	void aBurstPostedToOneInstanceIsDeliveredExactlyOnceAcrossBoth() throws Exception {
		ConfigurableApplicationContext first = start();
		ConfigurableApplicationContext second = start();
		WorkerContainerRegistry firstWorkers = first.getBean(WorkerContainerRegistry.class);
		firstWorkers.setPaused(WebhookWorkers.DELIVERIES, true);

		HttpResponse<String> accepted = this.http
			.send(HttpRequest.newBuilder(uri(first, "/webhooks/burst?count=" + PAYLOADS + "&targets=" + TARGETS))
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(accepted.statusCode()).isEqualTo(202);
		await().atMost(Duration.ofSeconds(30)).until(() -> totals(second).payloads() > 0);
		firstWorkers.setPaused(WebhookWorkers.DELIVERIES, false);

		await().atMost(Duration.ofSeconds(60))
			.until(() -> totals(first).payloads() + totals(second).payloads() >= PAYLOADS);
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(5))
			.until(() -> totals(first).payloads() + totals(second).payloads() == PAYLOADS);
		List<String> delivered = new ArrayList<>(delivered(first));
		delivered.addAll(delivered(second));
		assertThat(delivered).containsExactlyInAnyOrderElementsOf(
				IntStream.range(0, PAYLOADS).mapToObj((i) -> "burst payload " + i).toList());
		assertThat(delivered(second)).as("delivered by the instance that did not stage them").isNotEmpty();
		assertThat(totals(first).deadLetters() + totals(second).deadLetters()).isZero();
		List<String> outboxKeys = withRedis((redis) -> keys(redis, PREFIX + "outbox:*"));
		assertThat(outboxKeys).as("outbox keys left").isEmpty();
	}

	/**
	 * Counts the connections of one instance by the client name they share (the queues
	 * use the client of the application's connection factory): once with its queues in
	 * Redis, once with the same application keeping its queues in memory (its outbox and
	 * health still on Redis). The difference is the queues' own (contract: at most 4);
	 * docs/redis.md states both numbers.
	 */
	@Test
	void theQueuesOpenThreeConnectionsOfTheirOwn() throws Exception {
		Connections withRedisQueues = connectionsOfAnInstance("redis");
		Connections withMemoryQueues = connectionsOfAnInstance("memory");
		assertThat(withRedisQueues.beforeHealth - withMemoryQueues.beforeHealth).as("the queues' own connections")
			.isEqualTo(3);
		assertThat(withRedisQueues.afterHealth - withRedisQueues.beforeHealth).as("opened by a health request")
			.isEqualTo(withMemoryQueues.afterHealth - withMemoryQueues.beforeHealth);
		assertThat(withRedisQueues.afterHealth).as("all connections of an instance of the sample").isEqualTo(5);
	}

	private Connections connectionsOfAnInstance(String backend) throws Exception {
		String clientName = "wq-sample-" + UUID.randomUUID();
		ConfigurableApplicationContext instance = start("--spring.data.redis.client-name=" + clientName,
				"--workqueue.defaults.backend=" + backend);
		HttpResponse<String> posted = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(uri(instance, "/webhooks"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"targetId\":\"shop-1\",\"payload\":\"x\"}"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(posted.statusCode()).isEqualTo(202);
		await().atMost(Duration.ofSeconds(20)).until(() -> totals(instance).deliveries() == 1);
		// The queues' wait for work: their blocking connection is open once a worker
		// waits.
		await().atMost(Duration.ofSeconds(5))
			.until(() -> instance.getBean(WorkerContainerRegistry.class)
				.containers()
				.stream()
				.allMatch((container) -> container.aliveThreads() == container.concurrency()));
		long beforeHealth = connectionsNamed(clientName);
		HttpResponse<String> health = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(uri(instance, "/actuator/health")).build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(health.statusCode()).isEqualTo(200);
		long afterHealth = connectionsNamed(clientName);
		System.err.println(
				"Connections with " + backend + " queues: " + beforeHealth + ", after a health request " + afterHealth);
		instance.close();
		this.instances.remove(instance);
		return new Connections(beforeHealth, afterHealth);
	}

	private static long connectionsNamed(String clientName) {
		return withRedis((redis) -> redis.clientList()
			.lines()
			.filter((line) -> line.contains(" name=" + clientName + " "))
			.count());
	}

	private record Connections(long beforeHealth, long afterHealth) {
	}

	private ConfigurableApplicationContext start(String... more) {
		List<String> args = new ArrayList<>(List.of("--server.port=0", "--workqueue.redis.key-prefix=" + PREFIX,
				"--sample.downstream.failure-rate=0.2", "--sample.downstream.latency=1ms",
				"--sample.receipts.poll-interval=20ms", "--workqueue.queues.deliveries.max-retries=-1",
				"--workqueue.queues.deliveries.rate-limiter.exponential.base-delay=1ms",
				"--workqueue.queues.deliveries.rate-limiter.exponential.max-delay=20ms",
				"--workqueue.queues.deliveries.rate-limiter.bucket.qps=1000",
				"--workqueue.queues.deliveries.rate-limiter.bucket.burst=1000",
				"--workqueue.queues.deliveries.rate-limiter.item-bucket.qps=1000",
				"--workqueue.queues.deliveries.rate-limiter.item-bucket.burst=1000"));
		args.addAll(List.of(more));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.initializers((initializing) -> ((GenericApplicationContext) initializing)
				.registerBean(RecordingDownstream.class, (definition) -> definition.setPrimary(true)))
			.run(args.toArray(String[]::new));
		this.instances.add(context);
		assertThat(context.getBean(Outbox.class)).isInstanceOf(RedisOutbox.class);
		return context;
	}

	private static DeliveryTotals totals(ConfigurableApplicationContext instance) {
		return instance.getBean(DeliveryLedger.class).totals();
	}

	private static Queue<String> delivered(ConfigurableApplicationContext instance) {
		return instance.getBean(RecordingDownstream.class).delivered;
	}

	private static URI uri(ConfigurableApplicationContext instance, String path) {
		return URI.create("http://127.0.0.1:" + instance.getEnvironment().getProperty("local.server.port") + path);
	}

	private static List<String> keys(RedisCommands<String, String> redis, String pattern) {
		List<String> keys = new ArrayList<>();
		ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
		KeyScanCursor<String> cursor = redis.scan(args);
		keys.addAll(cursor.getKeys());
		while (!cursor.isFinished()) {
			cursor = redis.scan(ScanCursor.of(cursor.getCursor()), args);
			keys.addAll(cursor.getKeys());
		}
		return keys;
	}

	private static <T> T withRedis(Function<RedisCommands<String, String>, T> action) {
		RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return action.apply(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}

	private static boolean answers() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", 6379), 500);
			socket.setSoTimeout(1000);
			socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			byte[] reply = socket.getInputStream().readNBytes(5);
			return "+PONG".equals(new String(reply, StandardCharsets.US_ASCII));
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * The simulated receiver, remembering every payload it accepted.
	 */
	static class RecordingDownstream extends Downstream {

		final Queue<String> delivered = new ConcurrentLinkedQueue<>();

		RecordingDownstream(DownstreamProperties properties) {
			super(properties);
		}

		@Override
		public void deliver(String targetId, List<String> payloads) throws InterruptedException {
			super.deliver(targetId, payloads);
			this.delivered.addAll(payloads);
		}

	}

}
