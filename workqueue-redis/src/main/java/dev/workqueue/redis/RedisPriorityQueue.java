package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * One instance's handle on a priority queue shared through Redis: the
 * {@link PriorityQueue} over a {@link RedisWorkQueue} with the
 * {@link QueueLayout#PRIORITY priority layout} of its ready items, so that the rules of
 * {@link PriorityQueue} hold across every instance with the same key prefix and name,
 * with the plain queue's leases, fencing, parking, shutdown and wake-ups. The handle's
 * capabilities ({@link SharedQueue}, {@link dev.workqueue.spi.PollerFactory}) are found
 * through {@link #capability}. Built by
 * {@link RedisWorkQueues.Builder#buildPriorityQueue}.
 *
 * @param <T> the item type
 */
final class RedisPriorityQueue<T> implements PriorityQueue<T> {

	private final RedisWorkQueue<T> queue;

	private final RateLimiter<? super T> limiter;

	private final Duration starvationTimeout;

	RedisPriorityQueue(RedisWorkQueue<T> queue, RateLimiter<? super T> limiter, Duration starvationTimeout) {
		this.queue = queue;
		this.limiter = limiter;
		this.starvationTimeout = starvationTimeout;
	}

	@Override
	public void add(T item, int priority) {
		this.queue.add(item, priority);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Each item at priority 0, sent all before the first answer is awaited.
	 */
	@Override
	public void addAll(Collection<? extends T> items) {
		this.queue.addAll(items);
	}

	@Override
	public void addAfter(T item, Duration delay, int priority) {
		this.queue.addAfter(item, delay, priority);
	}

	@Override
	public void addRateLimited(T item, int priority) {
		Objects.requireNonNull(item, "item");
		PriorityQueue.checkPriority(priority);
		if (!this.queue.isShuttingDown()) {
			this.queue.addAfter(item, this.limiter.when(item), priority);
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
	public Prioritized<T> getWithPriority() throws InterruptedException {
		return this.queue.take(false, null);
	}

	@Override
	public Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException {
		return this.queue.take(true, timeout);
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
	public WorkQueueStats stats() {
		return this.queue.stats();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One read of Redis, O(log n) per priority with ready items. The age of a level is
	 * that of its first in line: an item raised into a level lines up at its back, so an
	 * older item raised there later does not count.
	 */
	@Override
	public List<Level> readyLevels() {
		List<Long> flat = this.queue.read(LuaScript.PLEVELS);
		List<Level> levels = new ArrayList<>(flat.size() / 3);
		for (int i = 0; i + 2 < flat.size(); i += 3) {
			levels.add(new Level((int) (long) flat.get(i), (int) (long) flat.get(i + 1), flat.get(i + 2) * 1000));
		}
		return levels;
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

	/** This queue's capabilities first, then the handle's. */
	@Override
	public <C> Optional<C> capability(Class<C> type) {
		return PriorityQueue.super.capability(type).or(() -> this.queue.capability(type));
	}

	@Override
	public String toString() {
		return "RedisPriorityQueue[" + name() + ", limited by " + this.limiter
				+ ((this.starvationTimeout != null) ? ", starvation timeout " + this.starvationTimeout : "") + "]";
	}

}
