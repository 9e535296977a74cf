package dev.workqueue.postgres;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * One instance's handle on a priority queue kept in PostgreSQL: the {@link PriorityQueue}
 * over a {@link PostgresWorkQueue} with the {@link ReadyOrder#PRIORITY priority order},
 * so that its rules hold across every instance with the same table and name, with the
 * plain queue's leases, fencing, parking, shutdown and wake-ups. The handle's
 * capabilities ({@link dev.workqueue.spi.SharedWorkQueue},
 * {@link dev.workqueue.spi.PollerFactory}) are found through {@link #capability}.
 *
 * @param <T> the item type
 */
final class PostgresPriorityQueue<T> implements PriorityQueue<T> {

	private final PostgresWorkQueue<T> queue;

	private final RateLimiter<? super T> limiter;

	PostgresPriorityQueue(PostgresWorkQueue<T> queue, RateLimiter<? super T> limiter) {
		this.queue = queue;
		this.limiter = limiter;
	}

	@Override
	public void add(T item, int priority) {
		this.queue.add(item, priority);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Each item at priority 0, in one statement outside a caller's transaction.
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
	 * One read of the table. The age of a level is that of its first in line.
	 */
	@Override
	public List<Level> readyLevels() {
		return this.queue.readyLevels();
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
		return "PostgresPriorityQueue[" + name() + ", limited by " + this.limiter + "]";
	}

}
