package dev.workqueue.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.store.SharedStoreQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * A three-master Redis Cluster on loopback, started by the test from
 * {@code redis-server --cluster-enabled yes} and {@code redis-cli --cluster create}:
 * queues whose names hash to different slots work, each with all its keys on one node.
 */
@RequiresRedis
class RedisClusterTests {

	private final List<RedisServers.Server> nodes = new ArrayList<>();

	private RedisClusterClient client;

	@BeforeEach
	void startCluster() throws Exception {
		RedisServers.assumeRedisServer();
		for (int i = 0; i < 3; i++) {
			int port = RedisServers.freePort();
			this.nodes.add(RedisServers.start("--cluster-enabled", "yes", "--cluster-config-file",
					"nodes-" + port + ".conf", "--cluster-node-timeout", "2000", "--appendonly", "no"));
		}
		List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
		this.nodes.forEach((node) -> create.add("127.0.0.1:" + node.port()));
		create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
		Process process = new ProcessBuilder(create).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		assertThat(process.waitFor()).as(output).isZero();
		this.client = RedisClusterClient.create(RedisURI.create("redis://127.0.0.1:" + this.nodes.get(0).port()));
		await().atMost(Duration.ofSeconds(20)).until(this::clusterIsReady);
	}

	private boolean clusterIsReady() {
		try (var connection = this.client.connect()) {
			return connection.sync().clusterInfo().contains("cluster_state:ok");
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	@AfterEach
	void stopCluster() throws IOException {
		if (this.client != null) {
			this.client.shutdown();
		}
		this.nodes.forEach(RedisServers.Server::kill);
	}

	@Test
	void queuesInDifferentSlotsWorkAcrossTheCluster() throws Exception {
		List<String> names = List.of("orders", "invoices", "emails", "reports");
		assertThat(names.stream().map((name) -> SlotHash.getSlot("{" + name + "}")).distinct()).hasSizeGreaterThan(1);
		for (String name : names) {
			DelayingQueue<String> a = RedisWorkQueues.builder(this.client, ItemCodec.strings())
				.name(name)
				.lease(Duration.ofSeconds(2))
				.buildDelayingQueue();
			DelayingQueue<String> b = RedisWorkQueues.builder(this.client, ItemCodec.strings())
				.name(name)
				.buildDelayingQueue();
			try {
				a.add("x");
				a.add("x");
				b.add("y");
				assertThat(b.poll(Duration.ofSeconds(5))).isEqualTo("x");
				a.add("x");
				assertThat(a.poll(Duration.ofSeconds(5))).isEqualTo("y");
				assertThat(a.poll(Duration.ZERO)).as("x is being processed by b").isNull();
				b.done("x");
				assertThat(a.poll(Duration.ofSeconds(5))).isEqualTo("x");
				a.done("x");
				a.done("y");
				b.addAfter("later", Duration.ofMillis(200));
				assertThat(a.poll(Duration.ofSeconds(5))).isEqualTo("later");
				a.done("later");
				assertThat(a.stats().processing()).isZero();
			}
			finally {
				a.shutDown();
				b.shutDown();
			}
		}
		priorityQueuesWorkAcrossTheClusterToo();
		inspectionWorksAcrossTheClusterToo();
	}

	/**
	 * Run in the same cluster: the look's scripts, and the build's move of the previous
	 * release's dead letters, find every key they read in the queue's slot, and a resume
	 * wakes a waiting consumer of another instance through the notices the instances of a
	 * cluster wait for.
	 */
	private void inspectionWorksAcrossTheClusterToo() throws Exception {
		try (var connection = this.client.connect()) {
			connection.sync()
				.rpush("workqueue:{looked-at}:dead", "{\"payload\":\"old\",\"reason\":\"bad\",\"server\":\"s:1\"}");
		}
		DelayingQueue<String> a = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("looked-at")
			.heartbeat(Duration.ofMinutes(5))
			.buildDelayingQueue();
		DelayingQueue<String> b = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("looked-at")
			.heartbeat(Duration.ofMinutes(5))
			.buildDelayingQueue();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			InspectionDriver inspection = ((SharedStoreQueue<?, ?>) a).driver().inspection();
			inspection.pause(true);
			b.add("x");
			b.addAfter("later", Duration.ofMinutes(5));
			inspection.keepGivenUp("gone", 2, "failed");
			assertThat(b.poll(Duration.ZERO)).isNull();
			assertThat(inspection.items(ItemState.READY, 0, 10)).extracting(ItemView::text).containsExactly("x");
			assertThat(inspection.items(ItemState.WAITING, 0, 10)).extracting(ItemView::text).containsExactly("later");
			assertThat(inspection.find("gone")).extracting(ItemView::state).containsExactly(ItemState.GIVEN_UP);
			assertThat(inspection.find("old")).extracting(ItemView::state, ItemView::reason)
				.containsExactly(tuple(ItemState.GIVEN_UP, "bad"));
			assertThat(inspection.givenUpCount()).isEqualTo(2);
			Future<String> taken = executor.submit(() -> b.poll(Duration.ofMinutes(1)));
			await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !taken.isDone());
			inspection.pause(false);
			assertThat(taken).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("x");
			assertThat(inspection.items(ItemState.PROCESSING, 0, 10)).extracting(ItemView::holder)
				.containsExactly(((SharedStoreQueue<?, ?>) b).driver().inspection().instance());
			b.done("x");
			assertThat(inspection.deleteGivenUp("gone", null)).isTrue();
		}
		finally {
			executor.shutdownNow();
			a.shutDown();
			b.shutDown();
		}
	}

	/** Run in the same cluster: its keys, with the priority layout's, share one slot. */
	private void priorityQueuesWorkAcrossTheClusterToo() throws Exception {
		RateLimiter<Object> limiter = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5),
				Duration.ofSeconds(1));
		PriorityQueue<String> a = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name("tasks")
			.buildPriorityQueue(limiter);
		// The entry that takes any client, and the queue's shared limiters, on the
		// cluster.
		AbstractRedisClient anyClient = this.client;
		RedisWorkQueues.Builder<String> tasks = RedisWorkQueues.builder(anyClient, ItemCodec.strings()).name("tasks");
		PriorityQueue<String> b = tasks
			.buildPriorityQueue(tasks.rateLimiters().exponential(Duration.ofMillis(5), Duration.ofSeconds(1)));
		try {
			a.add("low", -1);
			b.add("high", 5);
			a.addAfter("later", Duration.ofMillis(200), 9);
			assertThat(b.pollWithPriority(Duration.ofSeconds(5))).isEqualTo(new Prioritized<>("high", 5));
			a.add("high", 7);
			b.done("high");
			assertThat(a.pollWithPriority(Duration.ofSeconds(5))).isEqualTo(new Prioritized<>("high", 7));
			a.done("high");
			await().atMost(Duration.ofSeconds(5)).until(() -> b.size() == 2);
			assertThat(b.readyLevels()).extracting(PriorityQueue.Level::priority).containsExactly(9, -1);
			assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("later", 9));
			assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("low", -1));
			b.done("later");
			b.done("low");
			assertThat(a.stats().processing()).isZero();
			b.addRateLimited("retried", 3);
			assertThat(b.numRequeues("retried")).as("counted in the queue's slot").isOne();
			assertThat(a.pollWithPriority(Duration.ofSeconds(5))).isEqualTo(new Prioritized<>("retried", 3));
			a.done("retried");
			b.forget("retried");
		}
		finally {
			a.shutDown();
			b.shutDown();
		}
	}

}
