package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * A key of the queue's keyspace that holds another type than the queue keeps there (a
 * user's own key under the queue's prefix), met by a call whose batch holds items before
 * the one that meets it: the call either works or fails with {@code WRONG_TYPE} naming
 * the key, and then every key is as it was, whatever the message says. Each case puts the
 * key of one part in the way of one operation on a queue that holds an item, has one
 * queued and traces its adds.
 */
@RequiresRedis
class RedisWrongTypeTests {

	/** The parts of a queue's keyspace, as {@link QueueKeys} names them. */
	/** Whether the calling thread adds with no current span (the lone add's own way). */
	private static final ThreadLocal<Boolean> UNTRACED = ThreadLocal.withInitial(() -> false);

	private static final List<String> PARTS = List.of("queue", "dirty", "processing", "leases", "waiting", "given-up",
			"reporter", "ready", "since", "priorities", "grants", "wake", "given-up-at", "paused", "failures:attempts");

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	/** The case's handle. */
	private RedisWorkQueue<?> handle;

	/**
	 * Shuts the handle down and lets its timer end: one that failed (a hand-back it
	 * retries, say) backs off on the fake clock, which only the test moves.
	 */
	@AfterEach
	void close() throws Exception {
		if (this.handle != null) {
			this.handle.shutDown();
			this.handle.handBack();
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				this.clock.step(Duration.ofSeconds(10));
				return RedisFixture.timer(this.handle).stopped();
			});
		}
		this.redis.close();
	}

	/** An operation on a queue in the state the case sets up. */
	@FunctionalInterface
	private interface Operation {

		void run(WorkQueue<String> queue) throws Exception;

	}

	static Stream<Arguments> cases() {
		Map<String, Operation> operations = new LinkedHashMap<>();
		// The held item and a queued one come before the new ones: with grouped adds,
		// other threads' items.
		operations.put("addAll", (queue) -> queue.addAll(List.of("held", "new-1", "queued", "new-2", "new-1")));
		operations.put("add of a new item", (queue) -> queue.add("new-1"));
		operations.put("add of the held item", (queue) -> queue.add("held"));
		operations.put("add of a new item with no span", (queue) -> {
			UNTRACED.set(true);
			try {
				queue.add("new-1");
			}
			finally {
				UNTRACED.remove();
			}
		});
		operations.put("poll", (queue) -> queue.poll(Duration.ZERO));
		operations.put("done", (queue) -> queue.done("held"));
		operations.put("hand-back",
				(queue) -> queue.capability(SharedWorkQueue.class).orElseThrow().handBack("held", Duration.ZERO));
		List<Arguments> cases = new ArrayList<>();
		for (boolean prioritized : List.of(false, true)) {
			for (Map.Entry<String, Operation> operation : operations.entrySet()) {
				for (String part : PARTS) {
					cases.add(Arguments.of(prioritized ? "priority" : "plain", operation.getKey(), part,
							operation.getValue()));
				}
			}
		}
		return cases.stream();
	}

	@ParameterizedTest(name = "{0} queue, {1}, {2} of another type")
	@MethodSource("cases")
	void aCallThatMeetsAKeyOfAnotherTypeWorksOrFailsNamingItAndWritesNothing(String layout, String operation,
			String part, Operation call) throws Exception {
		String name = "q-" + layout + "-" + operation.replace(' ', '-') + "-" + part;
		RedisWorkQueues.Builder<String> builder = this.redis.builder(name)
			.clock(this.clock)
			.traceContextSource(() -> UNTRACED.get() ? null : "context");
		WorkQueue<String> queue = this.redis.track(layout.equals("priority")
				? builder.buildPriorityQueue(
						new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1)))
				: builder.buildDelayingQueue());
		this.handle = (RedisWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow();
		queue.add("held");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("held");
		queue.add("queued");
		String key = this.redis.key(name, part);
		RedisCommands<String, String> redis = this.redis.redis();
		// The handle's first tick takes the gauges' reporter role on its own thread: wait
		// for it, so that the key it writes is not taken for one the call wrote.
		String reporter = this.redis.key(name, "reporter");
		await().atMost(Duration.ofSeconds(10)).until(() -> redis.exists(reporter) == 1);
		String type = redis.type(key);
		redis.del(key);
		if (type.equals("string") || part.equals("reporter")) {
			redis.rpush(key, "someone else's");
		}
		else {
			redis.set(key, "someone else's");
		}
		Map<String, String> before = keys(name);

		RedisQueueException failure = catchThrowableOfType(RedisQueueException.class, () -> call.run(queue));

		if (failure != null) {
			assertThat(failure.reason()).isEqualTo(RedisQueueException.Reason.WRONG_TYPE);
			assertThat(failure).hasMessageContaining(key);
			if (failure.getMessage().contains("the others were added")) {
				assertThat(layout + " " + operation).as("only an addAll of one script per item adds some")
					.isEqualTo("priority addAll");
			}
			else {
				assertThat(keys(name)).as("every key as it was: " + failure.getMessage()).isEqualTo(before);
			}
		}
		redis.del(key);
	}

	/** Each key of the queue and its value, dumped. */
	private Map<String, String> keys(String name) {
		RedisCommands<String, String> redis = this.redis.redis();
		Map<String, String> keys = new HashMap<>();
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			KeyScanCursor<String> page = redis.scan(cursor,
					ScanArgs.Builder.matches(this.redis.prefix + "{" + name + "}:*").limit(500));
			for (String key : page.getKeys()) {
				keys.put(key, redis.type(key) + ":" + HexFormat.of().formatHex(redis.dump(key)));
			}
			cursor = page;
		}
		while (!cursor.isFinished());
		return keys;
	}

}
