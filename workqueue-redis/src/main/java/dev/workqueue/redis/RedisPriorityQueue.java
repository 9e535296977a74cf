package dev.workqueue.redis;

import dev.workqueue.ItemCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.time.Clock;

/**
 * One instance's handle on a priority queue shared through Redis: the
 * {@link RedisWorkQueue} with the {@link QueueLayout#PRIORITY priority layout} of its
 * ready items, so that the rules of {@link PriorityQueue} hold across every instance with
 * the same key prefix and name, with the plain queue's leases, fencing, parking, shutdown
 * and wake-ups. Built by {@link RedisWorkQueues.Builder#buildPriorityQueue}.
 *
 * @param <T> the item type
 */
final class RedisPriorityQueue<T> extends RedisWorkQueue<T> implements PriorityQueue<T> {

	private final RateLimiter<? super T> limiter;

	private final Duration starvationTimeout;

	RedisPriorityQueue(String name, ItemCodec<T> codec, QueueScripts scripts, Clock clock, Duration lease,
			Duration heartbeat, WorkQueueMetrics metrics, String id, Duration starvationTimeout,
			RateLimiter<? super T> limiter) {
		super(name, codec, scripts, clock, lease, heartbeat, metrics, id, starvationTimeout);
		this.limiter = limiter;
		this.starvationTimeout = starvationTimeout;
	}

	@Override
	public void addRateLimited(T item, int priority) {
		Objects.requireNonNull(item, "item");
		PriorityQueue.checkPriority(priority);
		if (!isShuttingDown()) {
			addAfter(item, this.limiter.when(item), priority);
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
		return takeWithPriority(false, null, ItemTaker.NOT_WAKEABLE);
	}

	@Override
	public Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException {
		return takeWithPriority(true, timeout, ItemTaker.NOT_WAKEABLE);
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
		List<Long> flat = read(LuaScript.PLEVELS);
		List<Level> levels = new ArrayList<>(flat.size() / 3);
		for (int i = 0; i + 2 < flat.size(); i += 3) {
			levels.add(new Level((int) (long) flat.get(i), (int) (long) flat.get(i + 1), flat.get(i + 2) * 1000));
		}
		return levels;
	}

	@Override
	public String toString() {
		return "RedisPriorityQueue[" + name() + ", limited by " + this.limiter
				+ ((this.starvationTimeout != null) ? ", starvation timeout " + this.starvationTimeout : "") + "]";
	}

}
