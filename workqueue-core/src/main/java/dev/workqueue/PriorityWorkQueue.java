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
final class PriorityWorkQueue<T> extends RateLimitingWorkQueue<T, DelayingWorkQueue<T>> implements PriorityQueue<T> {

	PriorityWorkQueue(DelayingWorkQueue<T> engine, RateLimiter<? super T> limiter) {
		super(engine, limiter);
	}

	@Override
	public void add(T item, int priority) {
		this.queue.add(Objects.requireNonNull(item, "item"), PriorityQueue.checkPriority(priority));
	}

	@Override
	public void addAfter(T item, Duration delay, int priority) {
		this.queue.addAfter(Objects.requireNonNull(item, "item"), Objects.requireNonNull(delay, "delay"),
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
		if (!this.queue.isShuttingDown()) {
			this.queue.addAfter(item, this.rateLimiter.when(item), priority);
		}
	}

	@Override
	public Prioritized<T> getWithPriority() throws InterruptedException {
		return this.queue.takeWithPriority(null);
	}

	@Override
	public Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException {
		return this.queue.takeWithPriority(Objects.requireNonNull(timeout, "timeout"));
	}

	@Override
	public List<Level> readyLevels() {
		return this.queue.readyLevels();
	}

	@Override
	public String toString() {
		return "PriorityQueue[" + name() + ", limited by " + this.rateLimiter + ", " + this.queue.order() + "]";
	}

}
