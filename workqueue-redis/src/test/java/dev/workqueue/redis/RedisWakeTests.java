package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.store.ReadySignal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis hands each wake-up to one waiting consumer of all the instances (the queue's wake
 * list, popped by each client's {@link WakeWatch}), not one per instance; an idle queue
 * with waiting consumers costs at most about one command a second; a delayed item wakes a
 * waiting consumer when due. Three clients play three instances, on a server of the
 * test's own, whose {@code INFO commandstats} counts only the queue's commands.
 */
@RequiresRedis
class RedisWakeTests {

	private static final int HANDLES = 3;

	private static final int CONSUMERS = 2;

	private RedisServers.Server server;

	private RedisCommands<String, String> admin;

	private final List<RedisClient> clients = new ArrayList<>();

	private final List<DelayingQueue<String>> handles = new ArrayList<>();

	private final AtomicBoolean stop = new AtomicBoolean();

	private final List<Thread> consumers = new ArrayList<>();

	/** Items handed out, and by whom. */
	private final List<String> handedOut = new CopyOnWriteArrayList<>();

	private final List<Throwable> failures = new CopyOnWriteArrayList<>();

	@BeforeEach
	void start() {
		RedisServers.assumeRedisServer();
		this.server = RedisServers.start();
		RedisClient adminClient = RedisClient.create(this.server.uri());
		this.clients.add(adminClient);
		this.admin = adminClient.connect().sync();
		for (int i = 0; i < HANDLES; i++) {
			RedisClient client = RedisClient.create(this.server.uri());
			this.clients.add(client);
			DelayingQueue<String> handle = RedisWorkQueues.builder(client, ItemCodec.strings())
				.name("q")
				.lease(Duration.ofMinutes(30))
				.heartbeat(Duration.ofMinutes(30))
				.buildDelayingQueue();
			this.handles.add(handle);
			RedisWorkQueue<?> redisHandle = (RedisWorkQueue<?>) handle;
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisFixture.timer(redisHandle).thread() != null);
		}
	}

	@AfterEach
	void stop() throws Exception {
		this.stop.set(true);
		this.handles.forEach(DelayingQueue::shutDown);
		for (Thread consumer : this.consumers) {
			consumer.join(10_000);
		}
		this.clients.forEach(RedisClient::shutdown);
		if (this.server != null) {
			this.server.kill();
		}
	}

	/**
	 * Starts {@link #CONSUMERS} workers on each handle, each riding its done with its
	 * next poll.
	 */
	private void startConsumers() {
		for (int h = 0; h < HANDLES; h++) {
			DelayingQueue<String> handle = this.handles.get(h);
			for (int c = 0; c < CONSUMERS; c++) {
				String who = "handle-" + h + "/consumer-" + c;
				Thread consumer = new Thread(() -> {
					try {
						Poller<String> poller = Pollers.of(handle);
						Prioritized<String> next = poller.poll(Duration.ofSeconds(1));
						while (!this.stop.get()) {
							if (next != null) {
								this.handedOut.add(next.item());
								next = poller.doneAndPoll(next.item(), Duration.ofSeconds(1));
							}
							else {
								next = poller.poll(Duration.ofSeconds(1));
							}
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					catch (Throwable ex) {
						this.failures.add(ex);
					}
				}, who);
				consumer.start();
				this.consumers.add(consumer);
			}
		}
	}

	/** Waits until every consumer has looked once and waits for a wake-up. */
	private void awaitConsumersWaiting() {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.consumers.stream()
				.allMatch((consumer) -> consumer.getState() == Thread.State.TIMED_WAITING));
	}

	/** Calls of a command so far, by {@code INFO commandstats}. */
	private long calls(String command) {
		for (String line : this.admin.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_" + command + ":")) {
				String rest = line.substring(line.indexOf("calls=") + "calls=".length());
				return Long.parseLong(rest.substring(0, rest.indexOf(',')));
			}
		}
		return 0;
	}

	/** Every command's calls so far, but the test's own INFO. */
	private long allCalls() {
		long calls = 0;
		for (String line : this.admin.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
				String rest = line.substring(line.indexOf("calls=") + "calls=".length());
				calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
			}
		}
		return calls;
	}

	@Test
	void eachItemWakesOneWaitingConsumerOfAllTheInstances() {
		startConsumers();
		awaitConsumersWaiting();
		int items = 30;
		long looksBefore = calls("lpop");
		for (int i = 0; i < items; i++) {
			String item = "item-" + i;
			this.handles.get(i % HANDLES).add(item);
			await().atMost(Duration.ofSeconds(10)).until(() -> this.handedOut.contains(item));
		}
		// Each item: the get of the one consumer woken, whose get found the list empty
		// after it, so that its done goes alone. A notice to every instance would wake a
		// consumer in each, and each would look (3 looks per item).
		long looks = calls("lpop") - looksBefore;
		assertThat(this.failures).isEmpty();
		assertThat(this.handedOut).hasSize(items).doesNotHaveDuplicates();
		assertThat((double) looks / items).as("looks per item (%d looks)", looks).isLessThanOrEqualTo(1.5);
	}

	/** Clients blocked in a {@code BLPOP} now, by {@code INFO clients}. */
	private long blockedClients() {
		for (String line : this.admin.info("clients").split("\r?\n")) {
			if (line.startsWith("blocked_clients:")) {
				return Long.parseLong(line.substring("blocked_clients:".length()).trim());
			}
		}
		return 0;
	}

	@Test
	void aWakeUpPoppedByAnInstanceWhoseConsumerLeftReachesAConsumerWaitingInAnother() throws Exception {
		// Instance 0's consumer waits, then gives up: its client's BLPOP stays blocked,
		// first in line for the queue's wake list.
		Poller<String> leaving = Pollers.of(this.handles.get(0));
		assertThat(leaving.poll(Duration.ofMillis(300))).isNull();
		await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients() == 1);
		Thread waiting = new Thread(() -> {
			try {
				Prioritized<String> item = Pollers.of(this.handles.get(1)).poll(Duration.ofSeconds(30));
				if (item != null) {
					this.handedOut.add(item.item());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "handle-1/consumer");
		waiting.start();
		this.consumers.add(waiting);
		await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients() == 2);
		this.handles.get(0).add("item");
		// Redis hands the wake-up to instance 0's BLPOP, blocked first; with no consumer
		// waiting there, it goes back to the list, where instance 1's BLPOP pops it. Else
		// it would wait for a tick (a heartbeat of 30 minutes here).
		await().atMost(Duration.ofSeconds(5)).until(() -> this.handedOut.contains("item"));
	}

	@Test
	void aTickSignalsAWaitingConsumerWhileTheWakeConnectionConnects() throws Exception {
		try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(this.server.port())) {
			RedisClient client = RedisClient.create("redis://127.0.0.1:" + proxy.port());
			this.clients.add(client);
			DelayingQueue<String> first = queueOn(client, "first");
			DelayingQueue<String> second = queueOn(client, "second");
			// The command connection is open: the next handshake is the wake
			// connection's.
			assertThat(second.poll(Duration.ZERO)).isNull();
			CountDownLatch release = new CountDownLatch(1);
			proxy.count("HELLO");
			proxy.holdReplyTo("HELLO", release);
			try {
				waitFor(first, "first/consumer");
				await().atMost(Duration.ofSeconds(10)).until(() -> proxy.requestsWith() >= 1);
				// The second queue's first waiter asks the watch for a wait while it
				// connects.
				Thread waiting = waitFor(second, "second/consumer");
				await().atMost(Duration.ofSeconds(10))
					.until(() -> waiting.getState() != Thread.State.RUNNABLE && Arrays.stream(waiting.getStackTrace())
						.anyMatch((frame) -> frame.getClassName().equals(ReadySignal.class.getName())
								&& frame.getMethodName().equals("awaitNotice")));
				// No wake-up can come through the watch: the tick that finds the item
				// ready
				// signals the consumer, which a connect under the watch's lock would hold
				// up
				// (with the shared timer thread) until the connect timed out.
				second.add("item");
				RedisFixture.timer((RedisWorkQueue<?>) second).wake();
				await().atMost(Duration.ofSeconds(3)).until(() -> this.handedOut.contains("item"));
			}
			finally {
				release.countDown();
			}
		}
	}

	private DelayingQueue<String> queueOn(RedisClient client, String name) {
		DelayingQueue<String> handle = RedisWorkQueues.builder(client, ItemCodec.strings())
			.name(name)
			.lease(Duration.ofMinutes(30))
			.heartbeat(Duration.ofMinutes(30))
			.buildDelayingQueue();
		this.handles.add(handle);
		// Subscribed by then: no handshake but the wake connection's is left to come.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> RedisFixture.timer((RedisWorkQueue<?>) handle).thread() != null);
		return handle;
	}

	/** Starts a consumer that waits up to 30 s for one item of {@code handle}. */
	private Thread waitFor(DelayingQueue<String> handle, String name) {
		Thread consumer = new Thread(() -> {
			try {
				Prioritized<String> item = Pollers.of(handle).poll(Duration.ofSeconds(30));
				if (item != null) {
					this.handedOut.add(item.item());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, name);
		consumer.start();
		this.consumers.add(consumer);
		return consumer;
	}

	@Test
	void anIdleQueueWithWaitingConsumersCostsAboutOneCommandASecond() {
		startConsumers();
		awaitConsumersWaiting();
		long before = allCalls();
		long startNanos = System.nanoTime();
		// A window to count in: nothing is added, so nothing is handed out.
		await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8)).until(this.handedOut::isEmpty);
		double seconds = (System.nanoTime() - startNanos) / 1e9;
		long commands = allCalls() - before;
		assertThat(commands / seconds)
			.as("%d commands in %.1f s, %d consumers waiting on %d clients", commands, seconds, HANDLES * CONSUMERS,
					HANDLES)
			.isLessThanOrEqualTo(1.0);
	}

	@Test
	void anItemHandedBackForLaterWakesAWaitingConsumerOfAnotherInstanceWhenDue() throws Exception {
		DelayingQueue<String> holder = this.handles.get(0);
		holder.add("back");
		assertThat(holder.poll(Duration.ofSeconds(10))).isEqualTo("back");
		startConsumers();
		awaitConsumersWaiting();
		long handedBackNanos = System.nanoTime();
		// No timer knows the item's time but through the hand-back's notice: each sleeps
		// a heartbeat of 30 minutes.
		assertThat(holder.capability(SharedWorkQueue.class).orElseThrow().handBack("back", Duration.ofMillis(300)))
			.isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.handedOut.contains("back"));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - handedBackNanos)).as("not before it is due")
			.isGreaterThanOrEqualTo(300);
		assertThat(this.handedOut).containsExactly("back");
	}

	@Test
	void aPriorityItemHandedBackForLaterWakesAWaitingConsumerOfAnotherInstanceWhenDue() throws Exception {
		List<PriorityQueue<String>> priority = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			RedisClient client = RedisClient.create(this.server.uri());
			this.clients.add(client);
			priority.add(RedisWorkQueues.builder(client, ItemCodec.strings())
				.name("p")
				.lease(Duration.ofMinutes(30))
				.heartbeat(Duration.ofMinutes(30))
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		}
		try {
			priority.get(0).add("back", 7);
			assertThat(priority.get(0).poll(Duration.ofSeconds(10))).isEqualTo("back");
			CompletableFuture<Prioritized<String>> taken = CompletableFuture.supplyAsync(() -> {
				try {
					return Pollers.of(priority.get(1)).poll(Duration.ofSeconds(30));
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients() >= 1);
			assertThat(priority.get(0)
				.capability(SharedWorkQueue.class)
				.orElseThrow()
				.handBack("back", Duration.ofMillis(300))).isTrue();
			Prioritized<String> item = taken.get(5, TimeUnit.SECONDS);
			assertThat(item.item()).isEqualTo("back");
			assertThat(item.priority()).isEqualTo(7);
		}
		finally {
			priority.forEach(PriorityQueue::shutDown);
		}
	}

	@Test
	void aDelayedItemWakesAWaitingConsumerOfAnotherInstanceWhenDue() {
		startConsumers();
		awaitConsumersWaiting();
		long addedNanos = System.nanoTime();
		this.handles.get(0).addAfter("later", Duration.ofMillis(300));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.handedOut.contains("later"));
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - addedNanos);
		assertThat(tookMillis).as("not before it is due").isGreaterThanOrEqualTo(300);
		assertThat(this.handedOut).containsExactly("later");
		Set<String> wakeKeys = ConcurrentHashMap.newKeySet();
		wakeKeys.addAll(this.admin.keys("*wake*"));
		assertThat(wakeKeys).as("a drained queue keeps no wake-up").isEmpty();
	}

}
