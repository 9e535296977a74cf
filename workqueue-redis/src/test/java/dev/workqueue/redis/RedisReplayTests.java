package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.FailureCounts;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every script is safe to run twice with the same arguments, as Lettuce runs a command
 * again when the connection dropped before its answer came: each test runs a script twice
 * on the shared Redis, exactly as a replay would, and looks at what the second run
 * changed and answered; and a get whose answer a proxy drops with the connection is sent
 * again by Lettuce, for real.
 */
@RequiresRedis
class RedisReplayTests {

	private static final String LEASE_MICROS = "30000000";

	private final RedisFixture redis = new RedisFixture();

	private final QueueKeys keys = QueueKeys.of(this.redis.prefix, "q");

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	/** Runs a queue script as a handle does, on the server's clock. */
	private <R> R run(LuaScript script, String... args) {
		return runAt("", script, args);
	}

	/** Runs a queue script as a handle does, at {@code nowMicros} ("": the server's). */
	private <R> R runAt(String nowMicros, LuaScript script, String... args) {
		return this.redis.runScript(this.keys, nowMicros, script, args);
	}

	@Test
	void aGetRunTwiceWithOneTokenAnswersWhatItLeasedAndLeasesNothingMore() {
		run(LuaScript.ADD, "a", "b");
		List<Object> first = run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		List<Object> again = run(LuaScript.GET, LEASE_MICROS, "h:1", "1");

		assertThat(first).first().isEqualTo("a");
		assertThat(again).isEqualTo(first);
		assertThat(this.redis.leaseTokens(this.keys.leases())).containsExactly(Map.entry("a", "h:1"));
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("b");
	}

	@Test
	void aGetRunAgainOnAnEmptyListAnswersWhatItsFirstRunLeased() {
		run(LuaScript.ADD, "a");
		List<Object> first = run(LuaScript.GET, LEASE_MICROS, "h:1", "2");
		List<Object> again = run(LuaScript.GET, LEASE_MICROS, "h:1", "2");

		assertThat(first).first().isEqualTo("a");
		assertThat(again).isEqualTo(first);
		assertThat(this.redis.leaseTokens(this.keys.leases())).containsExactly(Map.entry("a", "h:1"));
	}

	@Test
	void aGetRunAgainThatMovedDueItemsOntoTheEmptyListWakesTheConsumers() {
		runAt("1000", LuaScript.ADD, "a");
		runAt("1000", LuaScript.ADD_AFTER, "500", "b");
		List<Object> first = runAt("1000", LuaScript.GET, LEASE_MICROS, "h:1", "1");
		assertThat(this.redis.redis().exists(this.keys.wake())).as("the list ran empty").isZero();
		List<Object> again = runAt("2000", LuaScript.GET, LEASE_MICROS, "h:1", "1");

		assertThat(again).isEqualTo(first);
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("b");
		assertThat(this.redis.redis().lrange(this.keys.wake(), 0, -1)).as("a waiting consumer is woken").hasSize(1);
	}

	@Test
	void aGetRunTwiceGivesBackWhatItsSecondRunLeasedAsItWas() {
		run(LuaScript.ADD, "a", "b");
		String queuedAt = this.redis.redis().hget(this.keys.dirty(), "b");
		List<Object> first = run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "1");

		assertThat(first).first().isEqualTo("a");
		assertThat(this.redis.redis().hgetall(this.keys.dirty())).containsExactly(Map.entry("b", queuedAt));
		assertThat(this.redis.redis().zrange(this.keys.processing(), 0, -1)).containsExactly("a");
		assertThat(this.redis.redis().hkeys(this.keys.grants())).containsExactly("h:1");
	}

	@Test
	void aGetWhoseAnswerWasLostWithTheConnectionIsSentAgainAndLeasesOneItem() throws Exception {
		this.redis.redis().scriptLoad(LuaScript.GET.source());
		try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(RedisServers.shared().getPort())) {
			RedisClient client = RedisClient.create("redis://127.0.0.1:" + proxy.port());
			try {
				WorkQueue<String> queue = RedisWorkQueues.builder(client, ItemCodec.strings())
					.keyPrefix(this.redis.prefix)
					.name("q")
					.commandTimeout(Duration.ofSeconds(10))
					.buildQueue();
				queue.add("a");
				queue.add("b");
				proxy.dropReplyTo(LuaScript.GET.sha1());

				assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
				assertThat(proxy.dropped()).as("the first answer was lost").isOne();
				assertThat(this.redis.redis().hgetall(this.keys.leases())).containsOnlyKeys("a");
				assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("b");
				queue.done("a");
				queue.shutDown();
				assertThat(this.redis.redis().exists(this.keys.leases(), this.keys.grants())).isZero();
			}
			finally {
				client.shutdown();
			}
		}
	}

	@Test
	void aFailureCountWhoseAnswerWasLostWithTheConnectionCountsOnce() throws Exception {
		this.redis.redis().scriptLoad(LuaScript.FAILURES.source());
		try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(RedisServers.shared().getPort())) {
			RedisClient client = RedisClient.create("redis://127.0.0.1:" + proxy.port());
			try {
				FailureCounts<String> attempts = RedisRateLimiters.builder(client, ItemCodec.strings())
					.keyPrefix(this.redis.prefix)
					.name("q")
					.commandTimeout(Duration.ofSeconds(10))
					.attempts();
				proxy.dropReplyTo(LuaScript.FAILURES.sha1());

				assertThat(attempts.countFailure("x")).isZero();
				assertThat(proxy.dropped()).as("the first answer was lost").isOne();
				assertThat(attempts.failures("x")).isOne();
			}
			finally {
				client.shutdown();
			}
		}
	}

	@Test
	void aGetOfSeveralRunTwiceAnswersAllItLeased() {
		run(LuaScript.ADD, "a", "b", "c");
		List<Object> first = run(LuaScript.GET, LEASE_MICROS, "h:1", "2");
		List<Object> again = run(LuaScript.GET, LEASE_MICROS, "h:1", "2");
		assertThat(again).isEqualTo(first);
		assertThat(this.redis.redis().hgetall(this.keys.leases())).containsOnlyKeys("a", "b");
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("c");
	}

	@Test
	void aPriorityGetRunTwiceWithOneTokenAnswersWhatItLeasedAndLeasesNothingMore() {
		run(LuaScript.PADD, "a", "5");
		run(LuaScript.PADD, "b", "1");
		List<Object> first = run(LuaScript.PGET, LEASE_MICROS, "h:1", "1", "-1");
		List<Object> again = run(LuaScript.PGET, LEASE_MICROS, "h:1", "1", "-1");

		assertThat(first).first().isEqualTo("a");
		assertThat(again).isEqualTo(first);
		assertThat(this.redis.redis().hgetall(this.keys.leases())).containsOnlyKeys("a");
		assertThat(this.redis.redis().zcard(this.keys.ready())).isOne();
	}

	@Test
	void aGetRunTwiceKeepsTheGrantTimeOfWhatItsFirstRunLeasedOnly() {
		runAt("1000", LuaScript.ADD, "a", "b");
		runAt("1000", LuaScript.PADD, "p", "1");
		runAt("1000", LuaScript.GET, LEASE_MICROS, "h:1", "1");
		runAt("1000", LuaScript.PGET, LEASE_MICROS, "h:2", "1", "-1");
		runAt("2000", LuaScript.GET, LEASE_MICROS, "h:1", "1");
		runAt("2000", LuaScript.PGET, LEASE_MICROS, "h:2", "1", "-1");

		assertThat(this.redis.redis().hgetall(this.keys.leases()))
			.as("the first runs' items, at the first runs' time; the second run's b given back")
			.containsExactlyInAnyOrderEntriesOf(Map.of("a", "h:1.@1000", "p", "h:2.@1000"));
	}

	@Test
	void aDoneAndGetRunTwiceEndsOnceAndAnswersTheSameItem() {
		run(LuaScript.ADD, "a", "b", "c");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		List<Object> first = run(LuaScript.DONE_GET, LEASE_MICROS, "h:2", "1", "a", "h:1");
		List<Object> again = run(LuaScript.DONE_GET, LEASE_MICROS, "h:2", "1", "a", "h:1");

		assertThat(first).containsExactly(1L, "b", first.get(2), null);
		assertThat(again).as("the done finds its lease ended; the get answers the same item")
			.containsExactly(0L, "b", first.get(2), null);
		assertThat(this.redis.redis().hgetall(this.keys.leases())).containsOnlyKeys("b");
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("c");
	}

	@Test
	void aDoneRunTwiceQueuesAnItemAddedMeanwhileOnceAndForgetsTheGrant() {
		run(LuaScript.ADD, "a");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		run(LuaScript.ADD, "a");
		assertThat(this.redis.redis().exists(this.keys.grants())).isOne();

		assertThat((Long) run(LuaScript.DONE, "a", "h:1")).isOne();
		assertThat((Long) run(LuaScript.DONE, "a", "h:1")).isZero();
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("a");
		assertThat(this.redis.redis().exists(this.keys.grants())).isZero();
	}

	@Test
	void aReleaseRunTwiceQueuesTheItemOnce() {
		run(LuaScript.ADD, "a");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		assertThat((Long) run(LuaScript.RELEASE, "a", "h:1", "0")).isOne();
		assertThat((Long) run(LuaScript.RELEASE, "a", "h:1", "0")).isZero();
		assertThat(this.redis.redis().lrange(this.keys.queue(), 0, -1)).containsExactly("a");
		assertThat(this.redis.redis().exists(this.keys.grants(), this.keys.leases())).isZero();
	}

	@Test
	void aDeadLetterRunTwiceKeepsOneRecord() {
		run(LuaScript.ADD, "a");
		run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		String[] bound = RedisInspection.boundArgs(GivenUpBound.DEFAULT);
		assertThat((Long) run(LuaScript.DEAD_LETTER, "a", "h:1", "bad", "h", bound[0], bound[1])).isOne();
		assertThat((Long) run(LuaScript.DEAD_LETTER, "a", "h:1", "bad", "h", bound[0], bound[1])).isZero();
		assertThat(this.redis.redis().hgetall(this.keys.givenUp())).containsExactly(Map.entry("a", "0 h\nbad"));
		assertThat(this.redis.redis().zcard(this.keys.givenUpAt())).isOne();
		assertThat(this.redis.redis().exists(this.keys.leases())).isZero();
	}

	@Test
	void aPauseOrResumeRunTwiceChangesTheFlagOnce() {
		assertThat((Long) run(LuaScript.PAUSE, "1")).isOne();
		assertThat((Long) run(LuaScript.PAUSE, "1")).isZero();
		assertThat((Long) run(LuaScript.PAUSE, "0")).isOne();
		assertThat((Long) run(LuaScript.PAUSE, "0")).isZero();
		assertThat(this.redis.redis().exists(this.keys.paused())).isZero();
	}

	@Test
	void aGetRunAgainWhileThePauseCameBetweenAnswersWhatItLeased() {
		run(LuaScript.ADD, "a");
		List<Object> first = run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		run(LuaScript.PAUSE, "1");
		List<Object> again = run(LuaScript.GET, LEASE_MICROS, "h:1", "1");
		List<Object> next = run(LuaScript.GET, LEASE_MICROS, "h:2", "1");
		assertThat(again).isEqualTo(first);
		assertThat(next).isEmpty();
	}

	@Test
	void aLeaseThatRanOutForgetsItsGrant() {
		run(LuaScript.ADD, "a");
		// On a clock of the test's: leased at 1000 µs for 10 µs, reaped at 2000.
		runAt("1000", LuaScript.GET, "10", "h:1", "1");
		assertThat(this.redis.redis().exists(this.keys.grants())).isOne();
		List<Object> tick = runAt("2000", LuaScript.TICK, "100", "h", "30000", "2:S");
		assertThat(tick.get(1)).as("reaped").isEqualTo(1L);
		assertThat(this.redis.redis().exists(this.keys.grants())).isZero();
	}

	@Test
	void aFailureCountedTwiceForOneAttemptCountsOnce() {
		String counts = this.redis.prefix + "{q}:failures:attempts";
		assertThat(count(counts, "x", "a-1")).isZero();
		assertThat(count(counts, "x", "a-1")).as("the same attempt, again").isZero();
		assertThat(failures(counts, "x")).isOne();
		assertThat(count(counts, "x", "a-2")).isOne();
		assertThat(failures(counts, "x")).isEqualTo(2);
	}

	@Test
	void aCountKeptByAnEarlierVersionIsReadAndCountedOn() {
		String counts = this.redis.prefix + "{q}:failures:attempts";
		this.redis.redis().hset(counts, "x", "3");
		assertThat(failures(counts, "x")).isEqualTo(3);
		assertThat(count(counts, "x", "a-1")).isEqualTo(3);
		assertThat(failures(counts, "x")).isEqualTo(4);
	}

	private long count(String counts, String item, String attempt) {
		return this.redis.redis()
			.eval(LuaScript.FAILURES.source(), LuaScript.FAILURES.output(), new String[] { counts }, "count", item,
					"60000", attempt);
	}

	private long failures(String counts, String item) {
		return this.redis.redis()
			.eval(LuaScript.FAILURES.source(), LuaScript.FAILURES.output(), new String[] { counts }, "read", item,
					"60000", "");
	}

}
