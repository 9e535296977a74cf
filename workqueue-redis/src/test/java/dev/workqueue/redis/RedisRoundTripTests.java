package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.store.SharedPoller;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The paths that save round trips keep every rule: a worker's {@code done} riding with
 * its next get, a get leasing an item for each waiting consumer (each with a token of its
 * own), the bulk add, and the lease that moves what fell due itself.
 */
@RequiresRedis
class RedisRoundTripTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private final RedisFixture redis = new RedisFixture();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private WorkQueue<String> queue(String name) {
		return this.redis.track(this.redis.builder(name).buildQueue());
	}

	/** The queue's own poller, whose done rides with its next get. */
	private static Poller<String> poller(WorkQueue<String> queue) {
		Poller<String> poller = Pollers.of(queue);
		assertThat(poller).isInstanceOf(SharedPoller.class);
		return poller;
	}

	@Test
	void aDoneRidingWithTheNextGetEndsTheLeaseAndQueuesADirtyItemBehindTheReadyOnes() throws Exception {
		WorkQueue<String> queue = queue("q");
		queue.addAll(List.of("a", "b"));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.add("a");
		Poller<String> poller = poller(queue);
		Prioritized<String> next = poller.doneAndPoll("a", Duration.ZERO);
		assertThat(next.item()).as("a, added while processed, lines up behind b").isEqualTo("b");
		assertThat(this.redis.redis().hkeys(this.redis.key("q", "leases"))).containsExactly("b");
		next = poller.doneAndPoll("b", Duration.ZERO);
		assertThat(next.item()).isEqualTo("a");
		assertThat(poller.doneAndPoll("a", Duration.ZERO)).isNull();
		assertThat(queue.size()).isZero();
		assertThat(this.redis.redis()
			.exists(this.redis.key("q", "leases"), this.redis.key("q", "processing"), this.redis.key("q", "dirty")))
			.isZero();
	}

	@Test
	void aDoneWhoseLeaseWasLostChangesNothingAndItsGetStillLeases() throws Exception {
		WorkQueue<String> stale = queue("q");
		WorkQueue<String> other = queue("q");
		stale.addAll(List.of("x", "y"));
		assertThat(stale.poll(Duration.ZERO)).isEqualTo("x");
		// The server hands x back, as the reaper does to a lease that ran out, and the
		// other instance leases it.
		RedisCommands<String, String> redis = this.redis.redis();
		redis.zrem(this.redis.key("q", "processing"), "x");
		redis.hdel(this.redis.key("q", "leases"), "x");
		redis.hset(this.redis.key("q", "dirty"), "x", "0");
		redis.lpush(this.redis.key("q", "queue"), "x");
		assertThat(other.poll(Duration.ZERO)).isEqualTo("x");
		String othersToken = redis.hget(this.redis.key("q", "leases"), "x");
		Prioritized<String> next = poller(stale).doneAndPoll("x", Duration.ZERO);
		assertThat(next.item()).isEqualTo("y");
		assertThat(redis.hget(this.redis.key("q", "leases"), "x")).as("fenced off").isEqualTo(othersToken);
		other.done("x");
		stale.done("y");
		assertThat(redis.exists(this.redis.key("q", "leases"))).isZero();
	}

	@Test
	void aDoneRidingWithAGetAfterShutdownIsStillDone() throws Exception {
		WorkQueue<String> queue = queue("q");
		queue.addAll(List.of("a", "b"));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.shutDown();
		assertThat(poller(queue).doneAndPoll("a", Duration.ZERO)).isNull();
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"))).isZero();
		assertThat(this.redis.redis().lrange(this.redis.key("q", "queue"), 0, -1)).containsExactly("b");
	}

	@Test
	void aGetLeasesAnItemForEachWaitingConsumerEachUnderATokenOfItsOwn() throws Exception {
		WorkQueue<String> queue = queue("q");
		int consumers = 8;
		Map<String, String> taken = new ConcurrentHashMap<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < consumers; i++) {
			Thread thread = new Thread(() -> {
				try {
					String item = queue.get();
					taken.put(item, Thread.currentThread().getName());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "consumer-" + i);
			threads.add(thread);
			thread.start();
		}
		await().atMost(SOON).until(() -> threads.stream().allMatch((t) -> t.getState() == Thread.State.WAITING));
		List<String> items = IntStream.range(0, consumers).mapToObj((i) -> "item-" + i).toList();
		queue.addAll(items);
		await().atMost(SOON).until(() -> taken.size() == consumers);
		assertThat(taken.keySet()).containsExactlyInAnyOrderElementsOf(items);
		Map<String, String> leases = this.redis.leaseTokens(this.redis.key("q", "leases"));
		assertThat(leases).containsOnlyKeys(items);
		assertThat(leases.values()).as("a token each").doesNotHaveDuplicates();
		assertThat(leases.values()).as("leased several to a script").anyMatch((token) -> token.matches(".*\\.\\d+"));
		assertThat(((SharedQueue) queue).held()).isEqualTo(consumers);
		for (String item : items) {
			queue.done(item);
		}
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"))).isZero();
	}

	@Test
	void aShutDownRacingLeasesForWaitingConsumersLeavesNoLeaseBehind() throws Exception {
		for (int round = 0; round < 20; round++) {
			String name = "q" + round;
			WorkQueue<String> queue = queue(name);
			Map<String, Boolean> handedOut = new ConcurrentHashMap<>();
			List<Thread> threads = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				Thread thread = new Thread(() -> {
					try {
						for (String item = queue.get(); item != null; item = queue.get()) {
							handedOut.put(item, true);
							queue.done(item);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				threads.add(thread);
				thread.start();
			}
			List<String> items = IntStream.range(0, 12).mapToObj((i) -> "item-" + i).toList();
			queue.addAll(items);
			queue.shutDown();
			for (Thread thread : threads) {
				thread.join(SOON.toMillis());
				assertThat(thread.isAlive()).isFalse();
			}
			RedisCommands<String, String> redis = this.redis.redis();
			await().atMost(SOON).until(() -> redis.exists(this.redis.key(name, "leases")) == 0);
			List<String> left = redis.lrange(this.redis.key(name, "queue"), 0, -1);
			assertThat(left).doesNotHaveDuplicates().noneMatch(handedOut::containsKey);
			assertThat(left.size() + handedOut.size()).as("round " + round + ": none lost").isEqualTo(items.size());
		}
	}

	@Test
	void aBulkAddKeepsClientGosRulesForEachItem() throws Exception {
		WorkQueue<String> queue = queue("q");
		queue.add("held");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("held");
		List<String> burst = new ArrayList<>();
		for (int i = 0; i < QueueLayout.ADD_BATCH + 10; i++) {
			burst.add("item-" + (i % (QueueLayout.ADD_BATCH + 5)));
		}
		burst.add("held");
		queue.addAll(burst);
		assertThat(queue.size()).as("duplicates once, the held item dirty").isEqualTo(QueueLayout.ADD_BATCH + 5);
		queue.done("held");
		assertThat(queue.size()).isEqualTo(QueueLayout.ADD_BATCH + 6);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("item-0");
	}

	@Test
	void aBulkAddOfAPriorityQueueLinesEveryItemUpAtPriorityZero() throws Exception {
		PriorityQueue<String> queue = this.redis
			.track(this.redis.builder("p").buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		queue.add("high", 5);
		queue.addAll(List.of("a", "b", "a"));
		assertThat(queue.size()).isEqualTo(3);
		Poller<String> poller = poller(queue);
		assertThat(poller.poll(Duration.ZERO)).isEqualTo(new Prioritized<>("high", 5));
		Prioritized<String> next = poller.doneAndPoll("high", Duration.ZERO);
		assertThat(next).isEqualTo(new Prioritized<>("a", 0));
		assertThat(poller.doneAndPoll("a", Duration.ZERO)).isEqualTo(new Prioritized<>("b", 0));
		queue.done("b");
		assertThat(queue.size()).isZero();
	}

	@Test
	void anAddLinesUpBehindTheWaitingItemsThatFellDueBeforeIt() {
		QueueKeys keys = QueueKeys.of(this.redis.prefix, "s");
		RedisCommands<String, String> redis = this.redis.redis();
		redis.zadd(keys.waiting(), 1_000, "due");
		redis.zadd(keys.waiting(), 9_000, "later");
		// The script's clock at 5,000 µs.
		Long added = redis.eval(LuaScript.ADD.source(), ScriptOutputType.INTEGER, keys.all(), "5000", keys.channel(),
				"new");
		assertThat(added).isOne();
		assertThat(redis.lrange(keys.queue(), 0, -1)).containsExactly("due", "new");
		assertThat(redis.zrange(keys.waiting(), 0, -1)).containsExactly("later");
	}

	@Test
	void aLeaseMovesTheWaitingItemsThatFellDueBeforeItLeases() {
		QueueKeys keys = QueueKeys.of(this.redis.prefix, "s");
		RedisCommands<String, String> redis = this.redis.redis();
		redis.zadd(keys.waiting(), 1_000, "due");
		redis.zadd(keys.waiting(), 9_000, "later");
		// The script's clock at 5,000 µs: one lease moves "due" and leases it.
		List<Object> reply = redis.eval(LuaScript.GET.source(), ScriptOutputType.MULTI, keys.all(), "5000",
				keys.channel(), "30000000", "token", "2");
		// The item, its queued time, and no trace record.
		assertThat(reply).hasSize(3).first().isEqualTo("due");
		assertThat(redis.zrange(keys.waiting(), 0, -1)).containsExactly("later");
		assertThat(redis.hget(keys.leases(), "due")).as("the token, granted at 5,000 µs").isEqualTo("token.@5000");
	}

}
