package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.store.SharedPoller;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The priority queue on Redis beyond the contract's rules: the rules across two handles
 * (instances), with leases and fencing; the exactness of the ready set's order at the
 * bounds of the priorities and of the ready-order numbers; and the refusal to share a
 * name with a plain queue.
 */
@RequiresRedis
class RedisPriorityQueueTests {

	private static final Duration SOON = Duration.ofSeconds(5);

	private static final String NAME = "prio";

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private PriorityQueue<String> instance() {
		return this.redis.track(this.redis.builder(NAME)
			.clock(this.clock)
			.lease(Duration.ofSeconds(3))
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
	}

	private String key(String part) {
		return this.redis.key(NAME, part);
	}

	/** What a lease that ran out looks like: its expiry in the past. */
	private void expireLease(String item) {
		this.redis.redis().zadd(key("processing"), 0, item);
	}

	private static RedisWorkQueue<?> handle(PriorityQueue<String> queue) {
		return (RedisWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow();
	}

	@Test
	void theRulesHoldAcrossInstancesWithLeasesAndFencing() throws Exception {
		PriorityQueue<String> a = instance();
		PriorityQueue<String> b = instance();
		a.add("x", 1);
		a.add("y", 5);
		b.add("z", 3);
		b.add("x", 2);
		assertThat(a.size()).isEqualTo(3);
		assertThat(b.readyLevels()).extracting(Level::priority, Level::ready)
			.containsExactly(tuple(5, 1), tuple(3, 1), tuple(2, 1));
		assertThat(b.getWithPriority()).isEqualTo(new Prioritized<>("y", 5));
		// Added while b processes it, from the other instance: dirty with the highest.
		a.add("y", 9);
		a.add("y", 2);
		assertThat(b.size()).isEqualTo(2);
		assertThat(a.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("z", 3));
		a.done("z");
		b.done("y");
		assertThat(a.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("y", 9));
		// a's lease runs out: the item comes back with its priority, to b.
		expireLease("y");
		RedisFixture.timer(handle(b)).wake();
		await().atMost(SOON).until(() -> b.size() == 2);
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("y", 9));
		String bToken = this.redis.redis().hget(key("leases"), "y");
		// a's late done is fenced off: b keeps its lease, and y is never held twice.
		a.done("y");
		assertThat(this.redis.redis().hget(key("leases"), "y")).isEqualTo(bToken);
		assertThat(b.stats().processing()).isOne();
		assertThat(a.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("x", 2));
		assertThat(a.pollWithPriority(Duration.ZERO)).isNull();
		b.done("y");
		a.done("x");
		assertThat(a.stats().processing()).isZero();
		assertThat(this.redis.redis()
			.exists(key("queue"), key("dirty"), key("leases"), key("processing"), key("ready"), key("since"),
					key("priorities"), key("waiting")))
			.isZero();
	}

	@Test
	void aLeaseParkedByItsOwnHandleComesBackWithItsPriorityAfterTheLateDone() throws Exception {
		PriorityQueue<String> a = instance();
		PriorityQueue<String> b = instance();
		a.add("x", 7);
		a.add("low", -1);
		assertThat(a.getWithPriority()).isEqualTo(new Prioritized<>("x", 7));
		expireLease("x");
		RedisFixture.timer(handle(a)).wake();
		await().atMost(SOON).until(() -> a.size() == 2);
		// a leases x again while its worker holds it: parked, not handed out.
		assertThat(a.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("low", -1));
		assertThat(b.pollWithPriority(Duration.ZERO)).as("the parked lease is live").isNull();
		a.done("x");
		assertThat(b.pollWithPriority(Duration.ZERO)).as("handed back with its priority")
			.isEqualTo(new Prioritized<>("x", 7));
		b.done("x");
		a.done("low");
	}

	@Test
	void aQueueHandedBackLeavesItsItemsWithTheirPriorities() throws Exception {
		PriorityQueue<String> a = instance();
		PriorityQueue<String> b = instance();
		a.add("x", 4);
		a.add("y", 1);
		assertThat(a.getWithPriority()).isEqualTo(new Prioritized<>("x", 4));
		a.add("x", 6);
		assertThat(handle(a).handBack()).isOne();
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("x", 6));
		assertThat(handle(b).handBack("x", Duration.ofSeconds(1))).isTrue();
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("y", 1));
		b.done("y");
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(SOON).until(() -> b.size() == 1);
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("x", 6));
		b.done("x");
	}

	@Test
	void theReadySetsOrderIsExactAtThePriorityBoundsAndForReadyNumbersNearTheirMaximum() throws Exception {
		PriorityQueue<String> queue = instance();
		RedisCommands<String, String> redis = this.redis.redis();
		redis.hset(key("priorities"), "#", Long.toString(Long.MAX_VALUE - 10));
		queue.add("min-1", PriorityQueue.MIN_PRIORITY);
		queue.add("max-1", PriorityQueue.MAX_PRIORITY);
		queue.add("max-2", PriorityQueue.MAX_PRIORITY);
		queue.add("below-max", PriorityQueue.MAX_PRIORITY - 1);
		queue.add("min-2", PriorityQueue.MIN_PRIORITY);
		queue.add("above-min", PriorityQueue.MIN_PRIORITY + 1);
		queue.add("min-3", PriorityQueue.MIN_PRIORITY);
		// Raised from the lowest to the highest: the back of the highest level.
		queue.add("min-3", PriorityQueue.MAX_PRIORITY);
		List<ScoredValue<String>> ready = redis.zrangeWithScores(key("ready"), 0, -1);
		assertThat(ready).extracting(ScoredValue::getValue)
			.containsExactly("9223372036854775799:max-1", "9223372036854775800:max-2", "9223372036854775805:min-3",
					"9223372036854775801:below-max", "9223372036854775803:above-min", "9223372036854775798:min-1",
					"9223372036854775802:min-2");
		assertThat(ready.get(0).getScore()).isEqualTo(-1_000_000.0);
		assertThat(ready.get(6).getScore()).isEqualTo(1_000_000.0);
		assertThat(redis.zrange(key("since"), 0, 0)).as("the raise kept when min-3 became ready")
			.containsExactly("9223372036854775798:min-1");
		assertThat(redis.zscore(key("since"), "9223372036854775804:min-3")).isNotNull();
		assertThat(drain(queue)).containsExactly(new Prioritized<>("max-1", PriorityQueue.MAX_PRIORITY),
				new Prioritized<>("max-2", PriorityQueue.MAX_PRIORITY),
				new Prioritized<>("min-3", PriorityQueue.MAX_PRIORITY),
				new Prioritized<>("below-max", PriorityQueue.MAX_PRIORITY - 1),
				new Prioritized<>("above-min", PriorityQueue.MIN_PRIORITY + 1),
				new Prioritized<>("min-1", PriorityQueue.MIN_PRIORITY),
				new Prioritized<>("min-2", PriorityQueue.MIN_PRIORITY));
		assertThat(redis.exists(key("priorities"), key("ready"), key("since"))).as("drained: the numbers start again")
			.isZero();

		// Across 2^53, where a double stops being exact.
		redis.hset(key("priorities"), "#", Long.toString((1L << 53) - 2));
		for (int i = 0; i < 4; i++) {
			queue.add("n" + i, 0);
		}
		assertThat(redis.zrange(key("ready"), 0, -1)).containsExactly("0009007199254740991:n0",
				"0009007199254740992:n1", "0009007199254740993:n2", "0009007199254740994:n3");
		assertThat(drain(queue)).extracting(Prioritized::item).containsExactly("n0", "n1", "n2", "n3");

		// At the very end of the numbers the add fails and writes nothing.
		redis.hset(key("priorities"), "#", Long.toString(Long.MAX_VALUE));
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.add("over", 1));
		assertThat(redis.exists(key("ready"), key("since"), key("dirty"))).isZero();
		assertThat(redis.hgetall(key("priorities"))).containsOnlyKeys("#");
		redis.del(key("priorities"));
	}

	private static List<Prioritized<String>> drain(PriorityQueue<String> queue) throws InterruptedException {
		List<Prioritized<String>> out = new ArrayList<>();
		Prioritized<String> next;
		while ((next = queue.pollWithPriority(Duration.ZERO)) != null) {
			out.add(next);
			queue.done(next.item());
		}
		return out;
	}

	@Test
	void aPriorityQueueAndAPlainQueueMayNotShareAName() throws Exception {
		PriorityQueue<String> priority = instance();
		priority.add("x", 1);
		assertThatExceptionOfType(RedisQueueException.class)
			.isThrownBy(() -> this.redis.builder(NAME).clock(this.clock).buildQueue())
			.withMessageContaining("may not share a name")
			.withMessageContaining(key("ready"));
		this.redis.track(this.redis.builder("plain").clock(this.clock).buildQueue()).add("y");
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> this.redis.builder("plain")
			.clock(this.clock)
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))))
			.withMessageContaining("may not share a name")
			.withMessageContaining(this.redis.key("plain", "queue"));
	}

	@Test
	void theOtherLayoutIsToldAlsoWhileNoItemOfItIsReady() throws Exception {
		PriorityQueue<String> priority = instance();
		priority.addAfter("later", Duration.ofMinutes(5), 5);
		priority.add("held", 1);
		assertThat(priority.poll(Duration.ZERO)).isEqualTo("held");
		assertThat(this.redis.redis().exists(key("ready"))).as("no item ready").isZero();
		assertThatExceptionOfType(RedisQueueException.class)
			.isThrownBy(() -> this.redis.builder(NAME).clock(this.clock).buildQueue())
			.withMessageContaining("may not share a name")
			.withMessageContaining(key("priorities"));
		this.redis.track(this.redis.builder("plain").clock(this.clock).buildDelayingQueue())
			.addAfter("later", Duration.ofMinutes(5));
		// A plain queue keeps its items' trace contexts in the same hash, without
		// priorities.
		this.redis.redis().hset(this.redis.key("plain", "priorities"), "tlater", "00-trace");
		this.redis.track(this.redis.builder("plain").clock(this.clock).buildDelayingQueue());
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> this.redis.builder("plain")
			.clock(this.clock)
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))))
			.withMessageContaining("may not share a name")
			.withMessageContaining(this.redis.key("plain", "waiting"));
	}

	@Test
	void workerContainersPollWithThePriorityAndCanWakeThePolls() throws Exception {
		PriorityQueue<String> queue = instance();
		Poller<String> poller = Pollers.of(queue);
		assertThat(poller).as("the handle's own, behind the priority queue").isInstanceOf(SharedPoller.class);
		queue.add("x", 42);
		assertThat(poller.poll(Duration.ZERO)).isEqualTo(new Prioritized<>("x", 42));
		poller.wakeup();
		queue.add("y", 1);
		assertThat(poller.doneAndPoll("x", Duration.ofSeconds(5))).isNull();
		assertThat(queue.stats().depth()).isEqualTo(1);
		assertThat(queue.stats().processing()).as("x is done all the same").isZero();
		assertThat(poller.poll(Duration.ZERO)).isEqualTo(new Prioritized<>("y", 1));
		queue.done("y");
	}

	@Test
	void aWaitThatComesDueWhileTheItemIsHeldMakesItDirtyWithThePriorityOfTheWait() throws Exception {
		PriorityQueue<String> a = instance();
		PriorityQueue<String> b = instance();
		a.add("x", 1);
		a.add("y", 3);
		assertThat(a.getWithPriority()).isEqualTo(new Prioritized<>("y", 3));
		b.addAfter("y", Duration.ofSeconds(1), 8);
		b.addAfter("y", Duration.ofSeconds(2), 2);
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(SOON).until(() -> b.stats().waiting() == 0);
		assertThat(b.stats().addedWhileProcessing()).isOne();
		a.done("y");
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("y", 8));
		b.done("y");
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("x", 1));
		b.done("x");
	}

	@Test
	void aDirtyItemComesBackWithThePriorityOfItsPendingWaitIfHigher() throws Exception {
		PriorityQueue<String> a = instance();
		PriorityQueue<String> b = instance();
		a.add("x", 1);
		a.add("y", 2);
		assertThat(a.getWithPriority()).isEqualTo(new Prioritized<>("y", 2));
		b.addAfter("y", Duration.ofHours(1), 9);
		b.add("y", 0);
		a.done("y");
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("y", 9));
		b.done("y");
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("x", 1));
		b.done("x");
	}

	@Test
	void anExpiredLeaseOfAnItemAddedWhileHeldComesBackWithTheHigherPriority() throws Exception {
		PriorityQueue<String> a = instance();
		PriorityQueue<String> b = instance();
		a.add("x", 2);
		assertThat(a.getWithPriority()).isEqualTo(new Prioritized<>("x", 2));
		b.add("x", 5);
		expireLease("x");
		RedisFixture.timer(handle(b)).wake();
		await().atMost(SOON).until(() -> b.size() == 1);
		assertThat(b.pollWithPriority(Duration.ZERO)).isEqualTo(new Prioritized<>("x", 5));
		a.done("x");
		b.done("x");
		assertThat(b.pollWithPriority(Duration.ZERO)).as("handed out once more, not twice").isNull();
		assertThat(this.redis.redis().exists(key("priorities"), key("dirty"), key("leases"))).isZero();
	}

	@Test
	void readyLevelsAndStatsTellHowLongItemsHaveBeenReady() throws Exception {
		PriorityQueue<String> a = instance();
		PriorityQueue<String> b = instance();
		a.add("old", 1);
		this.clock.step(Duration.ofSeconds(2));
		b.add("new", 1);
		b.add("top", 9);
		this.clock.step(Duration.ofSeconds(1));
		assertThat(a.readyLevels()).containsExactly(new PriorityQueue.Level(9, 1, 1_000_000_000L),
				new PriorityQueue.Level(1, 2, 3_000_000_000L));
		assertThat(b.stats().headQueuedNanos()).as("the item ready longest").isEqualTo(3_000_000_000L);
		assertThat(b.stats().depth()).isEqualTo(3);
	}

	@Test
	void aKeyOfAnotherTypeFailsAnOperationBeforeItWritesAnything() throws Exception {
		PriorityQueue<String> queue = instance();
		RedisCommands<String, String> redis = this.redis.redis();
		for (String part : List.of("since", "dirty", "ready")) {
			redis.set(key(part), "someone else's");
			assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.add("x", 1))
				.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(RedisQueueException.Reason.WRONG_TYPE))
				.withMessageContaining(key(part));
			redis.del(key(part));
			assertThat(redis.exists(key("ready"), key("since"), key("dirty"), key("priorities"))).as(part).isZero();
		}
		queue.add("x", 1);
		assertThat(queue.getWithPriority()).isEqualTo(new Prioritized<>("x", 1));
		redis.set(key("since"), "someone else's");
		queue.add("x", 3);
		assertThat(redis.hget(key("priorities"), "dx")).as("dirty while held: since is not written").isEqualTo("3");
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.done("x"));
		assertThat(redis.hget(key("leases"), "x")).as("the failed done wrote nothing").isNotNull();
		redis.del(key("since"));
	}

}
