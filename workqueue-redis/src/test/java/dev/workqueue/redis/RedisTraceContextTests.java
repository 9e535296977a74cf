package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.TraceContextContract;
import dev.workqueue.WorkQueue;
import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.shared.SplitQueues;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Core's {@link TraceContextContract} on Redis, where the contexts live in the fields
 * {@code 't'..item} of the queue's per-item hash ({@code priorities}), and what only
 * Redis shows: the stored record's shape and bound, and that a plain queue without
 * contexts never creates the hash. {@link TwoHandles} runs the contract with every add
 * made through one handle and every take and done through another.
 */
@RequiresRedis
class RedisTraceContextTests extends TraceContextContract {

	private final RedisFixture redis = new RedisFixture();

	@Override
	protected RateLimitingQueue<String> newQueue(RateLimiter<Object> limiter) {
		return this.redis.track(this.redis.builder("traced")
			.clock(this.clock)
			.traceContextSource(this.source)
			.buildRateLimitingQueue(limiter));
	}

	@Override
	protected PriorityQueue<String> newPriorityQueue(RateLimiter<Object> limiter) {
		return this.redis.track(this.redis.builder("traced-priority")
			.clock(this.clock)
			.traceContextSource(this.source)
			.buildPriorityQueue(limiter));
	}

	@Override
	protected int storedTraces(WorkQueue<String> queue) {
		return storedTraces(this.redis, queue);
	}

	/** The fields {@code 't'..item} of the per-item hash of {@code queue}. */
	private static int storedTraces(RedisFixture redis, WorkQueue<String> queue) {
		String name = (queue instanceof PriorityQueue) ? "traced-priority" : "traced";
		return (int) redis.redis()
			.hkeys(redis.key(name, "priorities"))
			.stream()
			.filter((field) -> field.startsWith("t"))
			.count();
	}

	@AfterEach
	void deleteKeys() throws Exception {
		this.redis.close();
	}

	@Test
	void theRecordIsTheParentThenOneLinePerLinkBoundedByEight() {
		RateLimitingQueue<String> queue = newQueue(new FixedLimiter());
		this.current.set("p");
		queue.add("x");
		for (int i = 0; i < 10; i++) {
			this.current.set("l" + i);
			queue.add("x");
		}
		assertThat(this.redis.redis().hget(this.redis.key("traced", "priorities"), "tx"))
			.isEqualTo("p\nl0\nl1\nl2\nl3\nl4\nl5\nl6\nl7");
	}

	@Test
	void aPlainQueueWithoutContextsHasNoPerItemHash() throws Exception {
		RateLimitingQueue<String> queue = newQueue(new FixedLimiter());
		queue.add("x");
		queue.addAfter("y", Duration.ofSeconds(1));
		queue.addAll(List.of("z", "w"));
		assertThat(this.redis.redis().exists(this.redis.key("traced", "priorities"))).isZero();
		Poller<String> poller = Pollers.of(queue);
		assertThat(poller.poll(Duration.ZERO).item()).isEqualTo("x");
		assertThat(poller.trace()).isNull();
	}

	@Test
	void anUndecodableItemGivenUpLeavesNoContextBehind() {
		QueueKeys keys = QueueKeys.of(this.redis.prefix, "dead");
		this.redis.runScript(keys, "", LuaScript.ADD_TRACED, "ctx-1", "x");
		this.redis.runScript(keys, "", LuaScript.GET, "30000000", "h:1", "1");
		// Added again while held: a dirty mark, with its context.
		this.redis.runScript(keys, "", LuaScript.ADD_TRACED, "ctx-2", "x");
		String[] bound = RedisInspection.boundArgs(GivenUpBound.DEFAULT);
		assertThat((Long) this.redis.runScript(keys, "", LuaScript.DEAD_LETTER, "x", "h:1", "cannot decode", "h",
				bound[0], bound[1]))
			.isOne();
		assertThat(this.redis.redis().exists(keys.priorities())).as("the per-item hash").isZero();
	}

	@Test
	void itemsLeasedAheadKeepTheirContexts() throws Exception {
		RateLimitingQueue<String> queue = newQueue(new FixedLimiter());
		for (String item : List.of("a", "b", "c")) {
			this.current.set("ctx-" + item);
			queue.add(item);
		}
		this.current.set(null);
		// Three pollers of one handle: a get may lease several items for them at once.
		List<Poller<String>> pollers = List.of(Pollers.of(queue), Pollers.of(queue), Pollers.of(queue));
		for (Poller<String> poller : pollers) {
			String item = poller.poll(Duration.ofSeconds(2)).item();
			assertThat(poller.trace()).isEqualTo(new ItemTrace("ctx-" + item, List.of()));
		}
	}

	/**
	 * The contract through two handles sharing the queue: adds on one, takes on the
	 * other, so that the contexts stored by one are handed out by the other.
	 */
	@Nested
	@RequiresRedis
	class TwoHandles extends TraceContextContract {

		private final RedisFixture redis = new RedisFixture();

		@AfterEach
		void deleteKeys() throws Exception {
			this.redis.close();
		}

		@Override
		protected RateLimitingQueue<String> newQueue(RateLimiter<Object> limiter) {
			return SplitQueues.rateLimiting(this.redis.track(handle("traced").buildRateLimitingQueue(limiter)),
					this.redis.track(handle("traced").buildRateLimitingQueue(limiter)));
		}

		@Override
		protected PriorityQueue<String> newPriorityQueue(RateLimiter<Object> limiter) {
			return SplitQueues.priority(this.redis.track(handle("traced-priority").buildPriorityQueue(limiter)),
					this.redis.track(handle("traced-priority").buildPriorityQueue(limiter)));
		}

		private RedisWorkQueues.Builder<String> handle(String name) {
			return this.redis.builder(name).clock(this.clock).traceContextSource(this.source);
		}

		@Override
		protected int storedTraces(WorkQueue<String> queue) {
			return RedisTraceContextTests.storedTraces(this.redis, queue);
		}

	}

	/** A one-second delay for every item. */
	private static final class FixedLimiter implements RateLimiter<Object> {

		@Override
		public Duration when(Object item) {
			return Duration.ofSeconds(1);
		}

		@Override
		public void forget(Object item) {
		}

		@Override
		public int numRequeues(Object item) {
			return 0;
		}

	}

}
