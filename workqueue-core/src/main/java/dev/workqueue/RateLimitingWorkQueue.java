package dev.workqueue;

import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * The {@link RateLimitingQueue}: a {@link DelayingQueue} whose {@code addRateLimited}
 * delays by what a {@link RateLimiter} says, as client-go's {@code rateLimitingType}.
 * Holds no state of its own; thread-safe as its parts are. {@link PriorityWorkQueue} adds
 * the priorities.
 *
 * @param <T> the item type
 */
sealed class RateLimitingWorkQueue<T> implements RateLimitingQueue<T> permits PriorityWorkQueue {

	private final DelayingQueue<T> queue;

	private final RateLimiter<? super T> rateLimiter;

	RateLimitingWorkQueue(DelayingQueue<T> queue, RateLimiter<? super T> rateLimiter) {
		this.queue = queue;
		this.rateLimiter = rateLimiter;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Ignored after shutdown without asking the rate limiter, so that an ignored add does
	 * not count as a requeue.
	 */
	@Override
	public void addRateLimited(T item) {
		Objects.requireNonNull(item, "item");
		if (!this.queue.isShuttingDown()) {
			this.queue.addAfter(item, this.rateLimiter.when(item));
		}
	}

	@Override
	public void forget(T item) {
		this.rateLimiter.forget(Objects.requireNonNull(item, "item"));
	}

	@Override
	public int numRequeues(T item) {
		return this.rateLimiter.numRequeues(Objects.requireNonNull(item, "item"));
	}

	@Override
	public void addAfter(T item, Duration delay) {
		this.queue.addAfter(item, delay);
	}

	@Override
	public void add(T item) {
		this.queue.add(item);
	}

	@Override
	public void addAll(Collection<? extends T> items) {
		this.queue.addAll(items);
	}

	@Override
	public T get() throws InterruptedException {
		return this.queue.get();
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		return this.queue.poll(timeout);
	}

	@Override
	public void done(T item) {
		this.queue.done(item);
	}

	@Override
	public int size() {
		return this.queue.size();
	}

	@Override
	public void shutDown() {
		this.queue.shutDown();
	}

	@Override
	public void shutDownWithDrain() {
		this.queue.shutDownWithDrain();
	}

	@Override
	public boolean isShuttingDown() {
		return this.queue.isShuttingDown();
	}

	@Override
	public String name() {
		return this.queue.name();
	}

	@Override
	public WorkQueueStats stats() {
		return this.queue.stats();
	}

	@Override
	public <C> Optional<C> capability(Class<C> type) {
		return RateLimitingQueue.super.capability(type).or(() -> this.queue.capability(type));
	}

	/** The wrapped queue. */
	DelayingQueue<T> delayingQueue() {
		return this.queue;
	}

	@Override
	public String toString() {
		return "RateLimitingQueue[" + this.queue + ", limited by " + this.rateLimiter + "]";
	}

}
