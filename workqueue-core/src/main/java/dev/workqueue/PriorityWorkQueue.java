package dev.workqueue;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * The in-memory {@link PriorityQueue}: the rate-limiting queue over a
 * {@link DelayingWorkQueue} whose ready order is a {@link PriorityOrder}, adding the
 * priority to each call. Holds no state of its own; thread-safe as the engine is.
 *
 * @param <T> the item type
 */
final class PriorityWorkQueue<T> extends RateLimitingWorkQueue<T> implements PriorityQueue<T> {

	/** The wrapped queue, as the engine. */
	private final DelayingWorkQueue<T> engine;

	PriorityWorkQueue(DelayingWorkQueue<T> engine, RateLimiter<? super T> limiter) {
		super(engine, limiter);
		this.engine = engine;
	}

	@Override
	public void add(T item, int priority) {
		this.engine.add(Objects.requireNonNull(item, "item"), PriorityQueue.checkPriority(priority));
	}

	@Override
	public void addAfter(T item, Duration delay, int priority) {
		this.engine.addAfter(Objects.requireNonNull(item, "item"), Objects.requireNonNull(delay, "delay"),
				PriorityQueue.checkPriority(priority));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Ignored after shutdown without asking the rate limiter, as
	 * {@link RateLimitingWorkQueue#addRateLimited(Object)}.
	 */
	@Override
	public void addRateLimited(T item, int priority) {
		Objects.requireNonNull(item, "item");
		PriorityQueue.checkPriority(priority);
		if (!this.engine.isShuttingDown()) {
			this.engine.addAfter(item, this.rateLimiter.when(item), priority);
		}
	}

	@Override
	public Prioritized<T> getWithPriority() throws InterruptedException {
		return this.engine.takeWithPriority(null);
	}

	@Override
	public Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException {
		return this.engine.takeWithPriority(Objects.requireNonNull(timeout, "timeout"));
	}

	@Override
	public List<Level> readyLevels() {
		return this.engine.readyLevels();
	}

	@Override
	public String toString() {
		return "PriorityQueue[" + name() + ", limited by " + this.rateLimiter + ", " + this.engine.order() + "]";
	}

}
