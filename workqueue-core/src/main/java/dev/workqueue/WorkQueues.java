package dev.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.function.ToIntFunction;

import dev.workqueue.inspect.GivenUpBound;

import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.GuardedMetrics;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * Creates work queues: the one entry point to the queue implementations.
 * <pre class="code">
 * RateLimitingQueue&lt;String&gt; queue = WorkQueues.&lt;String&gt;builder()
 *     .name("orders")
 *     .buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
 * </pre> Queues built here are thread-safe. Besides the rules of {@link WorkQueue}, they
 * give this memory consistency effect: actions in a thread before {@code add(x)} (or
 * before {@code addAfter}/{@code addRateLimited} of {@code x}) happen before actions
 * after the next {@code get} or {@code poll} that returns {@code x}. No queue built here
 * runs a thread of its own: a delayed item becomes ready when its time comes and the
 * queue is used (a consumer waiting in {@code get} or {@code poll} is woken for it).
 *
 * @see WorkQueue
 * @see DelayingQueue
 * @see RateLimitingQueue
 */
public final class WorkQueues {

	private WorkQueues() {
	}

	/**
	 * Returns a builder with every option at its default.
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder() {
		return new Builder<>();
	}

	/**
	 * Returns a rate-limiting queue over any delaying queue, as client-go's
	 * {@code NewRateLimitingQueue} wraps a delaying one: {@code addRateLimited(x)} is
	 * {@code addAfter(x, limiter.when(x))}, ignored once the queue is shutting down;
	 * {@code forget} and {@code numRequeues} go to the limiter; the rest to the queue.
	 * How other backends (such as Redis) get their rate-limiting queues.
	 * @param queue the queue to wrap
	 * @param limiter decides the delay of {@code addRateLimited}
	 * @param <T> the item type
	 * @return the rate-limiting queue
	 */
	public static <T> RateLimitingQueue<T> rateLimiting(DelayingQueue<T> queue, RateLimiter<? super T> limiter) {
		return new RateLimitingWorkQueue<>(Objects.requireNonNull(queue, "queue"),
				Objects.requireNonNull(limiter, "limiter"));
	}

	/**
	 * Configures and builds work queues. Every option has a default: unnamed, the system
	 * clock, no metrics, a 10 second heartbeat. Each {@code build...} call creates a new,
	 * independent queue from the current options, so a builder can be reused. Not
	 * thread-safe.
	 *
	 * @param <T> the item type
	 */
	public static final class Builder<T> {

		/** The shortest heartbeat accepted. */
		public static final long MIN_HEARTBEAT_MILLIS = 1;

		private static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(10);

		private String name = "";

		private Clock clock = Clock.system();

		private WorkQueueMetrics metrics = WorkQueueMetrics.NOOP;

		private Duration heartbeat = DEFAULT_HEARTBEAT;

		/** Negative: no starvation guard. */
		private long starvationTimeoutNanos = -1;

		private TraceContextSource traceContextSource;

		/** {@code null}: none. */
		private ItemCodec<T> codec;

		private GivenUpBound givenUp = GivenUpBound.DEFAULT;

		private Builder() {
		}

		/**
		 * Sets the queue's name, used in its thread's name and by metrics.
		 * @param name the name, {@code ""} for none (the default)
		 * @return this builder
		 */
		public Builder<T> name(String name) {
			this.name = Objects.requireNonNull(name, "name");
			return this;
		}

		/**
		 * Sets the clock that measures delays and timeouts (default
		 * {@link Clock#system()}); tests pass a {@link dev.workqueue.time.FakeClock}.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder<T> clock(Clock clock) {
			this.clock = Objects.requireNonNull(clock, "clock");
			return this;
		}

		/**
		 * Sets the hook that receives the queue's events (default
		 * {@link WorkQueueMetrics#NOOP}, with which the queue never reads its clock on
		 * {@code add}, {@code get} and {@code done}).
		 * @param metrics the metrics hook
		 * @return this builder
		 */
		public Builder<T> metrics(WorkQueueMetrics metrics) {
			this.metrics = Objects.requireNonNull(metrics, "metrics");
			return this;
		}

		/**
		 * Sets where the queue gets the trace context of each add, to hand it out with
		 * the item to the worker's {@link dev.workqueue.spi.Poller} (default: none, and
		 * nothing is stored). The Spring starter sets one when the application has a
		 * tracer.
		 * @param source the source, or {@code null} for none
		 * @return this builder
		 */
		public Builder<T> traceContextSource(TraceContextSource source) {
			this.traceContextSource = source;
			return this;
		}

		/**
		 * Sets the codec of the queue's items, for its
		 * {@link dev.workqueue.inspect.QueueInspector} only (default: none): an item's
		 * text is then its encoding, as on a shared store, and a text can be turned back
		 * into an item ({@code readsText()}, {@code item(text)}). Without one an item's
		 * text is {@code String.valueOf(item)}. The queue itself never encodes.
		 * @param codec the codec, or {@code null} for none
		 * @return this builder
		 */
		public Builder<T> codec(ItemCodec<T> codec) {
			this.codec = codec;
			return this;
		}

		/**
		 * Sets how many given-up items the queue keeps for its
		 * {@link dev.workqueue.inspect.QueueInspector}, and for how long (default
		 * {@link GivenUpBound#DEFAULT}: 1000, for 7 days on the queue's clock): the
		 * newest {@code keep}, each until {@code retention} has passed; an item given up
		 * again replaces its record. Each record holds the item and a reason of at most
		 * {@value GivenUpRecords#MAX_REASON_CHARS} characters.
		 * @param keep the most records kept, from 0 (none) to
		 * {@link GivenUpBound#MAX_KEEP}
		 * @param retention how long each is kept, from 1 second to 100 years
		 * @return this builder
		 * @throws IllegalArgumentException naming {@code keep} or {@code retention} when
		 * out of range
		 */
		public Builder<T> givenUp(int keep, Duration retention) {
			this.givenUp = new GivenUpBound(keep, retention);
			return this;
		}

		/**
		 * Sets the longest time a consumer of any queue built here, waiting for the
		 * earliest delayed item, sleeps without looking at the waiting items again
		 * (default 10 seconds, as client-go's waiting loop): insurance only, since it
		 * otherwise wakes exactly when the earliest item is due. The floor is
		 * {@value #MIN_HEARTBEAT_MILLIS} ms: a shorter heartbeat would keep the consumer
		 * re-taking the queue's lock.
		 * @param heartbeat the heartbeat, at least 1 ms
		 * @return this builder
		 * @throws IllegalArgumentException if {@code heartbeat} is under 1 ms
		 */
		public Builder<T> heartbeat(Duration heartbeat) {
			Objects.requireNonNull(heartbeat, "heartbeat");
			if (heartbeat.compareTo(Duration.ofMillis(MIN_HEARTBEAT_MILLIS)) < 0) {
				throw new IllegalArgumentException(
						"heartbeat must be at least " + MIN_HEARTBEAT_MILLIS + " ms, was " + heartbeat);
			}
			this.heartbeat = heartbeat;
			return this;
		}

		/**
		 * Sets the starvation guard of priority queues (default: none, strict priority):
		 * an item ready for longer than {@code timeout} is handed out before every item
		 * ready for less, whatever the priorities. The trade-off: under a sustained load
		 * the queue hands out by age rather than priority once items start to starve, so
		 * a high priority no longer overtakes a backlog older than the timeout.
		 * @param timeout the timeout, zero or positive
		 * @return this builder
		 * @throws IllegalArgumentException if {@code timeout} is negative
		 */
		public Builder<T> starvationTimeout(Duration timeout) {
			Objects.requireNonNull(timeout, "timeout");
			if (timeout.isNegative()) {
				throw new IllegalArgumentException("starvationTimeout must not be negative, was " + timeout);
			}
			this.starvationTimeoutNanos = Nanos.of(timeout);
			return this;
		}

		/**
		 * Builds a priority queue: highest priority first, client-go's dedup rules kept,
		 * with the starvation guard if one was set.
		 * @param limiter decides the delay of {@code addRateLimited}
		 * @return a new queue
		 */
		public PriorityQueue<T> buildPriorityQueue(RateLimiter<? super T> limiter) {
			Objects.requireNonNull(limiter, "limiter");
			WorkQueueMetrics metrics = GuardedMetrics.guard(this.metrics, this.name);
			PriorityOrder<T> order = new PriorityOrder<>(this.starvationTimeoutNanos,
					metrics != WorkQueueMetrics.NOOP && metrics.recordsDurations());
			return new PriorityWorkQueue<>(engine(metrics, order, limiter::numRequeues), limiter);
		}

		/**
		 * Builds a plain work queue.
		 * @return a new queue
		 */
		public WorkQueue<T> buildQueue() {
			return new PlainWorkQueue<>(buildEngine(null));
		}

		/**
		 * Builds a delaying queue.
		 * @return a new queue
		 */
		public DelayingQueue<T> buildDelayingQueue() {
			return buildEngine(null);
		}

		/**
		 * Builds the engine with a FIFO order; {@code attempts} is the rate limiter's
		 * count that its inspector shows, or {@code null}.
		 */
		private DelayingWorkQueue<T> buildEngine(ToIntFunction<? super T> attempts) {
			WorkQueueMetrics metrics = GuardedMetrics.guard(this.metrics, this.name);
			return engine(metrics, new FifoOrder<>(metrics != WorkQueueMetrics.NOOP), attempts);
		}

		private DelayingWorkQueue<T> engine(WorkQueueMetrics metrics, ReadyOrder<T> order,
				ToIntFunction<? super T> attempts) {
			return new DelayingWorkQueue<>(this.name, this.clock, metrics, Nanos.of(this.heartbeat), order,
					TraceContextSource.guard(this.traceContextSource, this.name),
					new MemoryInspector.Options<>(this.codec, this.givenUp, attempts));
		}

		/**
		 * Builds a rate-limiting queue.
		 * @param limiter decides the delay of {@code addRateLimited}
		 * @return a new queue
		 */
		public RateLimitingQueue<T> buildRateLimitingQueue(RateLimiter<? super T> limiter) {
			Objects.requireNonNull(limiter, "limiter");
			return rateLimiting(buildEngine(limiter::numRequeues), limiter);
		}

	}

}
