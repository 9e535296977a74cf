package dev.workqueue.redis;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * A {@link RedisWorkQueue} with a rate limiter: {@code addRateLimited} is
 * {@code addAfter(item, limiter.when(item))}, as in client-go. The limiter decides where
 * the failure counts and tokens live: in this JVM (core's limiters) or in Redis, shared
 * by every instance ({@link RedisRateLimiters}).
 *
 * @param <T> the item type
 */
final class RedisRateLimitingQueue<T> implements RateLimitingQueue<T>, SharedQueue {

	private final RedisWorkQueue<T> queue;

	private final RateLimiter<? super T> limiter;

	RedisRateLimitingQueue(RedisWorkQueue<T> queue, RateLimiter<? super T> limiter) {
		this.queue = queue;
		this.limiter = limiter;
	}

	@Override
	public void addRateLimited(T item) {
		Objects.requireNonNull(item, "item");
		if (!this.queue.isShuttingDown()) {
			this.queue.addAfter(item, this.limiter.when(item));
		}
	}

	@Override
	public void forget(T item) {
		this.limiter.forget(Objects.requireNonNull(item, "item"));
	}

	@Override
	public int numRequeues(T item) {
		return this.limiter.numRequeues(Objects.requireNonNull(item, "item"));
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
	public int handBack() {
		return this.queue.handBack();
	}

	@Override
	public boolean reportsSharedGauges() {
		return this.queue.reportsSharedGauges();
	}

	@Override
	public int held() {
		return this.queue.held();
	}

	@Override
	public long stalled() {
		return this.queue.stalled();
	}

	@Override
	public long deadLettered() {
		return this.queue.deadLettered();
	}

	@Override
	public int depth() {
		return this.queue.depth();
	}

	@Override
	public String server() {
		return this.queue.server();
	}

	/** The queue underneath, for tests. */
	RedisWorkQueue<T> delayingQueue() {
		return this.queue;
	}

	@Override
	public String toString() {
		return this.queue + " limited by " + this.limiter;
	}

}
