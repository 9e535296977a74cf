package dev.workqueue.store;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueues;
import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.PriorityHandle;
import dev.workqueue.spi.SharedPriorityQueue;
import dev.workqueue.spi.TraceContextSource;

/**
 * The part of a shared store's queue builder that every store writes the same: the
 * options of the engine (the lease, the metrics hook, the trace context source, the
 * starvation guard) and the {@code build...} methods, which turn a store's handle into
 * the queue asked for. A store's builder adds its own options (where the queue lives, its
 * name and clock, which it shares with its limiters) and makes the handle
 * ({@link #newHandle(boolean)}), reading these options through the accessors.
 * <p>
 * Each {@code build...} call creates a new handle on the shared queue, from the options
 * as they are then; the handle behind each queue built implements {@link SharedQueue} and
 * {@link dev.workqueue.spi.PollerFactory}, found with {@code capability(...)} (or a
 * poller with {@link dev.workqueue.spi.Pollers#of}). Not thread-safe; the queues are.
 * Part of the shared-store engine, used by store modules; may change before 1.0.
 *
 * @param <T> the item type
 * @param <B> the store's builder, which every option returns
 */
public abstract class SharedQueueBuilder<T, B extends SharedQueueBuilder<T, B>> {

	/** The shortest lease accepted: renewal runs every third of it. */
	public static final Duration MIN_LEASE = Duration.ofSeconds(1);

	/** What {@code toString} calls a priority queue built here. */
	private final String priorityType;

	private Duration lease = Duration.ofSeconds(30);

	private WorkQueueMetrics metrics = WorkQueueMetrics.NOOP;

	/** {@code null}: no starvation guard. */
	private Duration starvationTimeout;

	/** {@code null}: none, and nothing is stored. */
	private TraceContextSource traceContextSource;

	private GivenUpBound givenUp = GivenUpBound.DEFAULT;

	/**
	 * Creates the shared part of a store's queue builder.
	 * @param priorityType what {@code toString} calls a priority queue built here, as
	 * {@code "RedisPriorityQueue"}
	 */
	protected SharedQueueBuilder(String priorityType) {
		this.priorityType = Objects.requireNonNull(priorityType, "priorityType");
	}

	/**
	 * Sets how long an item handed out stays leased without renewal (default 30 seconds,
	 * at least {@link #MIN_LEASE 1 second}). The handle renews the leases it holds every
	 * third of this; an item whose holder stops renewing (a crashed or paused process, or
	 * one cut off from the store) returns to the queue at most this long after, and the
	 * former holder's {@code done} then changes nothing.
	 * @param lease the lease
	 * @return this builder
	 * @throws IllegalArgumentException if {@code lease} is under {@link #MIN_LEASE}
	 */
	public B lease(Duration lease) {
		this.lease = OptionChecks.atLeast("lease", lease, MIN_LEASE);
		return self();
	}

	/**
	 * Sets the hook that receives the queue's events (default
	 * {@link WorkQueueMetrics#NOOP}), as this instance sees them. A hook whose
	 * {@link WorkQueueMetrics#recordsDurations()} is {@code false} (read once, when the
	 * queue is built) is never called with durations, and the queue reads no clock to
	 * measure them.
	 * @param metrics the hook
	 * @return this builder
	 */
	public B metrics(WorkQueueMetrics metrics) {
		this.metrics = Objects.requireNonNull(metrics, "metrics");
		return self();
	}

	/**
	 * Sets where the queue gets the trace context of each add (default: none, and nothing
	 * is stored). The context is kept in the store beside the item (the store's builder
	 * says where), written by the add itself, and taken by the get that hands the item
	 * out, which gives it to the worker's {@link dev.workqueue.spi.Poller#trace()}; it
	 * goes with the item. At most {@code 1 + ItemTrace.MAX_LINKS} contexts of at most
	 * {@code ItemTrace.MAX_CONTEXT_LENGTH} characters per item. An add without a context
	 * makes the store call it would make without a source. The Spring starter sets one
	 * when the application has a tracer.
	 * @param source the source, or {@code null} for none
	 * @return this builder
	 */
	public B traceContextSource(TraceContextSource source) {
		this.traceContextSource = source;
		return self();
	}

	/**
	 * Sets the starvation guard of priority queues (default: none, strict priority): an
	 * item ready longer than this is handed out before every item ready for less. It is
	 * the handle's: each {@code get} applies the timeout of the handle that calls it, so
	 * the instances sharing a queue should set the same.
	 * @param timeout the timeout, zero or positive
	 * @return this builder
	 * @throws IllegalArgumentException if {@code timeout} is negative
	 */
	public B starvationTimeout(Duration timeout) {
		Objects.requireNonNull(timeout, "timeout");
		if (timeout.isNegative()) {
			throw new IllegalArgumentException("starvationTimeout must not be negative, was " + timeout);
		}
		this.starvationTimeout = timeout;
		return self();
	}

	/**
	 * Sets how many given-up items the store keeps for the queue, and for how long
	 * (default {@link GivenUpBound#DEFAULT}: 1000, for 7 days): the records of
	 * {@link dev.workqueue.inspect.QueueInspector#keepGivenUp} and of payloads the codec
	 * cannot decode, shared by every instance. The instances sharing a queue should set
	 * the same; the last to write a record trims to its own bound.
	 * @param keep the most records kept, from 0 (none) to {@link GivenUpBound#MAX_KEEP}
	 * @param retention how long each is kept, from 1 second to 100 years
	 * @return this builder
	 * @throws IllegalArgumentException naming {@code keep} or {@code retention} when out
	 * of range
	 */
	public B givenUp(int keep, Duration retention) {
		this.givenUp = new GivenUpBound(keep, retention);
		return self();
	}

	/**
	 * Returns a builder of the shared rate limiters of the queue this builder builds: on
	 * the same store, with the options the queue shares with its limiters (its name among
	 * them) as set on this builder so far; later changes to either builder do not reach
	 * the other.
	 * @return a new builder of limiters
	 */
	public abstract SharedLimiterFactory<T> rateLimiters();

	/**
	 * Builds a work queue.
	 * @return a new handle on the shared queue, whose {@link SharedQueue} and
	 * {@link dev.workqueue.spi.PollerFactory} are found with {@code capability}
	 * @throws IllegalStateException if the name was not set, or the store keeps the
	 * queue's data in another format or timed by the other kind of clock
	 */
	public WorkQueue<T> buildQueue() {
		return buildDelayingQueue();
	}

	/**
	 * Builds a delaying queue.
	 * @return a new handle on the shared queue, whose {@link SharedQueue} and
	 * {@link dev.workqueue.spi.PollerFactory} are found with {@code capability}
	 * @throws IllegalStateException as {@link #buildQueue()}
	 */
	public DelayingQueue<T> buildDelayingQueue() {
		return newHandle(false);
	}

	/**
	 * Builds a rate-limiting queue.
	 * @param limiter decides the delay of {@code addRateLimited}; one of
	 * {@link #rateLimiters()} shares its state with the other instances
	 * @return a new handle on the shared queue, whose {@link SharedQueue} and
	 * {@link dev.workqueue.spi.PollerFactory} are found with {@code capability}
	 * @throws IllegalStateException as {@link #buildQueue()}
	 */
	public RateLimitingQueue<T> buildRateLimitingQueue(RateLimiter<? super T> limiter) {
		Objects.requireNonNull(limiter, "limiter");
		return WorkQueues.rateLimiting(newHandle(false), limiter);
	}

	/**
	 * Builds a priority queue: every instance that builds one on the same queue shares
	 * it, and {@link PriorityQueue}'s rules hold across them, with the leases, fencing
	 * and shutdown of the other queues, and the {@link #starvationTimeout starvation
	 * guard} if one was set. A plain queue and a priority queue must not share a name
	 * (the store's builder says what happens if they do).
	 * @param limiter decides the delay of {@code addRateLimited}; one of
	 * {@link #rateLimiters()} shares its state with the other instances
	 * @return a new handle on the shared queue, whose {@link SharedQueue} and
	 * {@link dev.workqueue.spi.PollerFactory} are found with {@code capability}
	 * @throws IllegalStateException as {@link #buildQueue()}
	 */
	public PriorityQueue<T> buildPriorityQueue(RateLimiter<? super T> limiter) {
		Objects.requireNonNull(limiter, "limiter");
		PriorityHandle<T> handle = newHandle(true);
		return new SharedPriorityQueue<>(handle, limiter, this.priorityType + "[" + handle.name()
				+ ((this.starvationTimeout != null) ? ", starvation timeout " + this.starvationTimeout : ""));
	}

	/**
	 * Makes a new handle on the shared queue from the options as they are, and starts its
	 * timed work.
	 * @param prioritized whether the queue's ready items have priorities (a priority
	 * queue) or are in FIFO order
	 * @return the handle, which also implements {@link SharedQueue} and
	 * {@link dev.workqueue.spi.PollerFactory}
	 * @throws IllegalStateException if the name was not set, or the store keeps the
	 * queue's data in another format or timed by the other kind of clock
	 */
	protected abstract PriorityHandle<T> newHandle(boolean prioritized);

	/**
	 * Returns the lease.
	 * @return the lease, at least {@link #MIN_LEASE}
	 */
	protected final Duration lease() {
		return this.lease;
	}

	/**
	 * Returns the metrics hook, unguarded.
	 * @return the hook
	 */
	protected final WorkQueueMetrics metrics() {
		return this.metrics;
	}

	/**
	 * Returns the trace context source.
	 * @return the source, or {@code null} for none
	 */
	protected final TraceContextSource traceContextSource() {
		return this.traceContextSource;
	}

	/**
	 * Returns how many given-up items the store keeps, and for how long.
	 * @return the bound
	 */
	protected final GivenUpBound givenUp() {
		return this.givenUp;
	}

	/**
	 * Returns the starvation timeout.
	 * @return the timeout, or {@code null} for none
	 */
	protected final Duration starvationTimeout() {
		return this.starvationTimeout;
	}

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

}
