package dev.workqueue.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.Adders;
import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Adds of a plain queue's handle from many threads share scripts: the adds that come
 * while one runs go together in the next (add-afters in one add-after script beside
 * them), each caller returns only once the script that holds its own add has answered, a
 * batch may hold one item twice or an item being processed, an add-after keeps its due
 * time however late its batch is sent, a shutdown while adds wait for their batch loses
 * none that was accepted, and the metrics hook runs outside the group. A priority queue's
 * {@code addAll} goes in one script by the same rules.
 */
@RequiresRedis
class RedisGroupedAddTests {

	private final RedisFixture redis = new RedisFixture();

	private ReplyDroppingProxy proxy;

	private RedisClient proxied;

	@AfterEach
	void close() throws Exception {
		this.redis.close();
		if (this.proxied != null) {
			this.proxied.shutdown();
			this.proxy.close();
		}
	}

	/** Whether the item is queued or marked dirty in Redis: written. */
	private boolean written(String item) {
		return this.redis.redis().hexists(this.redis.key("grouped", "dirty"), item);
	}

	/**
	 * A handle whose first add script's answer is held back on the way (a slow link)
	 * until {@code release}, and whose add scripts {@link #proxy} counts; its metrics
	 * hook counts the items added.
	 */
	private DelayingQueue<String> gated(CountDownLatch release, AtomicInteger added) throws IOException {
		return gated(release, added, null);
	}

	/**
	 * {@link #gated(CountDownLatch, AtomicInteger)} on a given clock.
	 * @param clock the clock, {@code null} for the server's
	 */
	private DelayingQueue<String> gated(CountDownLatch release, AtomicInteger added, Clock clock) throws IOException {
		this.redis.redis().scriptLoad(LuaScript.ADD.source());
		this.proxy = new ReplyDroppingProxy(RedisServers.shared().getPort());
		this.proxied = RedisClient.create("redis://127.0.0.1:" + this.proxy.port());
		this.proxy.count(LuaScript.ADD.sha1());
		this.proxy.holdReplyTo(LuaScript.ADD.sha1(), release);
		RedisWorkQueues.Builder<String> builder = RedisWorkQueues.builder(this.proxied, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("grouped")
			.commandTimeout(Duration.ofSeconds(30))
			.metrics(new WorkQueueMetrics() {
				@Override
				public void added() {
					added.incrementAndGet();
				}
			});
		if (clock != null) {
			builder.clock(clock);
		}
		return this.redis.track(builder.buildDelayingQueue());
	}

	/** The waiting item's due time, µs on the scripts' clock. */
	private long dueMicros(String item) {
		return this.redis.redis().zscore(this.redis.key("grouped", "waiting"), item).longValue();
	}

	@Test
	void addAftersThatComeWhileAScriptRunsGoInOneScriptBesideTheAddsAndKeepTheirDueTimes() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		FakeClock clock = new FakeClock();
		this.redis.redis().scriptLoad(LuaScript.ADD_AFTER.source());
		DelayingQueue<String> queue = gated(release, new AtomicInteger(), clock);
		this.proxy.count(LuaScript.ADD_AFTER.sha1());
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		Thread leader = Adders.start("adder-leader", () -> queue.add("first"), failures);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.proxy.requestsWith(LuaScript.ADD.sha1()) == 1);
		List<Thread> followers = new ArrayList<>();
		followers.add(Adders.start("adder-ready", () -> queue.add("ready"), failures));
		followers.add(Adders.start("adder-later-60", () -> queue.addAfter("later", Duration.ofSeconds(60)), failures));
		followers.add(Adders.start("adder-later-30", () -> queue.addAfter("later", Duration.ofSeconds(30)), failures));
		followers.add(Adders.start("adder-soon", () -> queue.addAfter("soon", Duration.ofSeconds(10)), failures));
		for (Thread follower : followers) {
			await().atMost(Duration.ofSeconds(5)).until(() -> follower.getState() == Thread.State.WAITING);
		}
		// Made 3 s after the others, before their batch is sent: due when "soon" is.
		clock.step(Duration.ofSeconds(3));
		Thread late = Adders.start("adder-late", () -> queue.addAfter("late", Duration.ofSeconds(7)), failures);
		await().atMost(Duration.ofSeconds(5)).until(() -> late.getState() == Thread.State.WAITING);
		assertThat(this.proxy.requestsWith()).as("only the leader's script was sent").isOne();
		release.countDown();
		join(leader);
		followers.forEach(RedisGroupedAddTests::join);
		join(late);
		assertThat(failures).isEmpty();
		assertThat(this.proxy.requestsWith(LuaScript.ADD.sha1())).isEqualTo(2);
		assertThat(this.proxy.requestsWith(LuaScript.ADD_AFTER.sha1())).as("the 4 add-afters in one script").isOne();
		assertThat(dueMicros("later") - dueMicros("soon")).as("the earlier of its two times").isEqualTo(20_000_000);
		assertThat(dueMicros("late")).as("due 7 s after it was made, as \"soon\", made 3 s before it for 10 s")
			.isEqualTo(dueMicros("soon"));
		assertThat(queue.size()).isEqualTo(2);
	}

	@Test
	void aPriorityQueuesAddAllGoesInOneScriptWithClientGosRulesItemByItem() throws Exception {
		this.redis.redis().scriptLoad(LuaScript.PADD.source());
		this.proxy = new ReplyDroppingProxy(RedisServers.shared().getPort());
		this.proxied = RedisClient.create("redis://127.0.0.1:" + this.proxy.port());
		AtomicInteger added = new AtomicInteger();
		PriorityQueue<String> queue = this.redis.track(RedisWorkQueues.builder(this.proxied, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("grouped")
			.metrics(new WorkQueueMetrics() {
				@Override
				public void added() {
					added.incrementAndGet();
				}
			})
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		queue.add("held", 2);
		queue.add("raised", -1);
		assertThat(queue.poll(Duration.ofSeconds(5))).isEqualTo("held");
		this.proxy.count(LuaScript.PADD.sha1());
		queue.addAll(List.of("a", "raised", "b", "a", "held"));
		assertThat(this.proxy.requestsWith()).as("the 5 adds in one script").isOne();
		assertThat(added).as("'raised' counted before, 'a' once, 'held' marked dirty").hasValue(2 + 3);
		assertThat(written("held")).as("marked dirty").isTrue();
		queue.done("held");
		List<String> handedOut = new ArrayList<>();
		for (String next = queue.poll(Duration.ZERO); next != null; next = queue.poll(Duration.ZERO)) {
			handedOut.add(next);
			queue.done(next);
		}
		assertThat(handedOut)
			.as("priority 0 in the order lined up: 'raised' from -1 at its place in the script, the dirty one last")
			.containsExactly("a", "raised", "b", "held");
	}

	@Test
	void scriptsOfManyAddsKeepEachAddsTraceContextAsLoneAddsWould() {
		QueueKeys list = QueueKeys.of(this.redis.prefix, "traced");
		this.redis.runScript(list, "", LuaScript.ADD_AFTER, "60000000", "a", "30000000", "a", "60000000", "b", "ctx-1");
		QueueKeys priority = QueueKeys.of(this.redis.prefix, "traced-priority");
		this.redis.runScript(priority, "", LuaScript.PADD, "c", "1", "c", "2", "ctx-2");
		RedisCommands<String, String> redis = this.redis.redis();
		assertThat(redis.hget(list.priorities(), "ta")).as("the first add the parent, the second a link")
			.isEqualTo("ctx-1\nctx-1");
		assertThat(redis.hget(list.priorities(), "tb")).isEqualTo("ctx-1");
		assertThat(redis.zscore(list.waiting(), "b") - redis.zscore(list.waiting(), "a"))
			.as("'a' at the earlier of its times")
			.isEqualTo(30_000_000);
		assertThat(redis.hget(priority.priorities(), "tc")).isEqualTo("ctx-2\nctx-2");
		assertThat(redis.zcard(priority.ready())).isOne();
	}

	@Test
	void aPriorityScriptOfManyAddsThatMeetsAReadyOrderCounterOfAnotherKindWritesNothing() {
		QueueKeys keys = QueueKeys.of(this.redis.prefix, "counter");
		this.redis.redis().hset(keys.priorities(), "#", "not a number");
		this.redis.redis().hset(keys.leases(), "held", "someone's token");
		assertThatExceptionOfType(RedisCommandExecutionException.class)
			.as("the held item, marked dirty first, then the new one lined up")
			.isThrownBy(() -> this.redis.runScript(keys, "", LuaScript.PADD, "held", "1", "new", "2"));
		assertThat(this.redis.redis().exists(keys.ready(), keys.since(), keys.dirty())).isZero();
		assertThat(this.redis.redis().hkeys(keys.priorities())).containsExactly("#");
	}

	@Test
	void addsThatComeWhileAScriptRunsGoTogetherInTheNextAndEachReturnsAfterItIsWritten() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger added = new AtomicInteger();
		DelayingQueue<String> queue = gated(release, added);
		DelayingQueue<String> other = this.redis.track(this.redis.builder("grouped").buildDelayingQueue());
		other.add("held");
		assertThat(other.poll(Duration.ofSeconds(5))).isEqualTo("held");
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		Thread leader = Adders.start("adder-leader", () -> queue.add("first"), failures);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.proxy.requestsWith() == 1);
		List<Thread> followers = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			String item = "item-" + i;
			followers.add(Adders.start("adder-" + i, () -> {
				queue.add(item);
				assertThat(written(item)).as("written when add returns").isTrue();
			}, failures));
		}
		for (int i = 0; i < 5; i++) {
			followers.add(Adders.start("adder-twice-" + i, () -> queue.add("twice"), failures));
		}
		followers.add(Adders.start("adder-held", () -> queue.add("held"), failures));
		for (Thread follower : followers) {
			await().atMost(Duration.ofSeconds(5)).until(() -> follower.getState() == Thread.State.WAITING);
		}
		assertThat(this.proxy.requestsWith()).as("only the leader's script was sent").isOne();
		release.countDown();
		join(leader);
		followers.forEach(RedisGroupedAddTests::join);
		assertThat(failures).isEmpty();
		assertThat(this.proxy.requestsWith()).as("the 26 adds that came meanwhile went in one script").isEqualTo(2);
		assertThat(added).as("the item added five times counts once, the held one is marked dirty").hasValue(23);
		assertThat(queue.size()).as("first, the 20 items and 'twice', each once").isEqualTo(22);
		other.done("held");
		List<String> handedOut = new ArrayList<>();
		for (String next = other.poll(Duration.ZERO); next != null; next = other.poll(Duration.ZERO)) {
			handedOut.add(next);
			other.done(next);
		}
		assertThat(handedOut).hasSize(23).doesNotHaveDuplicates().contains("held", "twice", "first");
	}

	@Test
	void aShutDownWhileAddsWaitForTheirScriptLosesNoneItAcceptedAndIgnoresTheRest() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		DelayingQueue<String> queue = gated(release, new AtomicInteger());
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		Thread leader = Adders.start("adder-leader", () -> queue.add("first"), failures);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.proxy.requestsWith() == 1);
		List<Thread> followers = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			String item = "item-" + i;
			followers.add(Adders.start("adder-" + i, () -> queue.add(item), failures));
		}
		for (Thread follower : followers) {
			await().atMost(Duration.ofSeconds(5)).until(() -> follower.getState() == Thread.State.WAITING);
		}
		queue.shutDown();
		queue.add("after-shutdown");
		release.countDown();
		join(leader);
		followers.forEach(RedisGroupedAddTests::join);
		assertThat(failures).isEmpty();
		for (int i = 0; i < 10; i++) {
			assertThat(written("item-" + i)).as("accepted before the shutdown").isTrue();
		}
		assertThat(written("after-shutdown")).isFalse();
		DelayingQueue<String> other = this.redis.track(this.redis.builder("grouped").buildDelayingQueue());
		assertThat(other.size()).isEqualTo(11);
	}

	/**
	 * R2: the metrics hook runs on the adding thread once its add returned, never inside
	 * the script of a group, where a hook that adds to its own queue would wait for that
	 * very script for good.
	 */
	@Test
	void aMetricsHookThatAddsToItsOwnQueueNeitherHangsNorLosesAnAdd() {
		AtomicReference<DelayingQueue<String>> self = new AtomicReference<>();
		AtomicInteger hooks = new AtomicInteger();
		DelayingQueue<String> queue = this.redis.track(this.redis.builder("grouped").metrics(new WorkQueueMetrics() {
			@Override
			public void added() {
				if (hooks.incrementAndGet() <= 3) {
					self.get().add("from-hook-" + hooks.get());
				}
			}
		}).buildDelayingQueue());
		self.set(queue);
		assertTimeoutPreemptively(Duration.ofSeconds(10), () -> queue.add("a"));
		assertThat(hooks).as("'a' and the three added by the hook").hasValue(4);
		assertThat(queue.size()).isEqualTo(4);
	}

	@Test
	void manyThreadsAddingWhileOthersProcessLoseNothingAndNeverHandOneItemToTwoHolders() throws Exception {
		List<DelayingQueue<String>> handles = List.of(
				this.redis.track(this.redis.builder("grouped").buildDelayingQueue()),
				this.redis.track(this.redis.builder("grouped").buildDelayingQueue()));
		Map<String, String> holders = new ConcurrentHashMap<>();
		// Items added and not handed out since: each must be handed out again.
		Set<String> owed = ConcurrentHashMap.newKeySet();
		List<String> violations = new CopyOnWriteArrayList<>();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		AtomicBoolean stop = new AtomicBoolean();
		List<Thread> consumers = new ArrayList<>();
		for (int h = 0; h < handles.size(); h++) {
			DelayingQueue<String> queue = handles.get(h);
			for (int c = 0; c < 3; c++) {
				String who = "handle-" + h + "/consumer-" + c;
				consumers.add(Adders.start(who, () -> {
					try {
						while (!stop.get()) {
							String item = queue.poll(Duration.ofMillis(100));
							if (item == null) {
								continue;
							}
							String before = holders.putIfAbsent(item, who);
							if (before != null) {
								violations.add(item + " held by " + before + " and " + who);
							}
							// Removed before the hold ends: an add that comes while it is
							// held marks it dirty, and it is owed again.
							owed.remove(item);
							holders.remove(item, who);
							queue.done(item);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}, failures));
			}
		}
		List<Thread> producers = new ArrayList<>();
		for (int p = 0; p < 8; p++) {
			DelayingQueue<String> queue = handles.get(p % 2);
			producers.add(Adders.start("producer-" + p, () -> {
				for (int i = 0; i < 150; i++) {
					// Few distinct items: duplicates in one batch, and adds of items
					// being processed.
					String item = "item-" + ThreadLocalRandom.current().nextInt(200);
					owed.add(item);
					queue.add(item);
				}
			}, failures));
		}
		producers.forEach(RedisGroupedAddTests::join);
		try {
			await().atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> owed.isEmpty() && holders.isEmpty() && handles.get(0).size() == 0
						&& handles.get(0).stats().processing() == 0);
		}
		finally {
			stop.set(true);
			consumers.forEach(RedisGroupedAddTests::join);
		}
		assertThat(failures).isEmpty();
		assertThat(violations).as("never two holders").isEmpty();
	}

	private static void join(Thread thread) {
		try {
			thread.join(30_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
	}

}
