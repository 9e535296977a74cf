package dev.workqueue.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * The {@link PriorityQueue} over a backend's {@link PriorityHandle}: the handle keeps the
 * items (with its leases, fencing, shutdown and wake-ups), the face adds the rate limiter
 * and answers its own capabilities before the handle's. Thread-safe as the handle is.
 *
 * @param <T> the item type
 */
public final class SharedPriorityQueue<T> implements PriorityQueue<T> {

	private final PriorityHandle<T> handle;

	private final RateLimiter<? super T> limiter;

	private final String description;

	/**
	 * Creates the face.
	 * @param handle the handle that keeps the items
	 * @param limiter decides the delay of {@code addRateLimited}
	 * @param description what {@link #toString()} says of the queue, as
	 * {@code "RedisPriorityQueue[orders"}; the face adds the limiter
	 */
	public SharedPriorityQueue(PriorityHandle<T> handle, RateLimiter<? super T> limiter, String description) {
		this.handle = Objects.requireNonNull(handle, "handle");
		this.limiter = Objects.requireNonNull(limiter, "limiter");
		this.description = Objects.requireNonNull(description, "description");
	}

	@Override
	public void add(T item, int priority) {
		this.handle.add(item, priority);
	}

	@Override
	public void addAll(Collection<? extends T> items) {
		this.handle.addAll(items);
	}

	@Override
	public void addAfter(T item, Duration delay, int priority) {
		this.handle.addAfter(item, delay, priority);
	}

	@Override
	public void addRateLimited(T item, int priority) {
		Objects.requireNonNull(item, "item");
		PriorityQueue.checkPriority(priority);
		if (!this.handle.isShuttingDown()) {
			this.handle.addAfter(item, this.limiter.when(item), priority);
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
		return this.handle.take(null);
	}

	@Override
	public Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException {
		return this.handle.take(Objects.requireNonNull(timeout, "timeout"));
	}

	@Override
	public void done(T item) {
		this.handle.done(item);
	}

	@Override
	public int size() {
		return this.handle.size();
	}

	@Override
	public WorkQueueStats stats() {
		return this.handle.stats();
	}

	@Override
	public List<Level> readyLevels() {
		return this.handle.readyLevels();
	}

	@Override
	public void shutDown() {
		this.handle.shutDown();
	}

	@Override
	public void shutDownWithDrain() {
		this.handle.shutDownWithDrain();
	}

	@Override
	public boolean isShuttingDown() {
		return this.handle.isShuttingDown();
	}

	@Override
	public String name() {
		return this.handle.name();
	}

	/** This queue's capabilities first, then the handle's. */
	@Override
	public <C> Optional<C> capability(Class<C> type) {
		return PriorityQueue.super.capability(type).or(() -> this.handle.capability(type));
	}

	@Override
	public String toString() {
		return this.description + ", limited by " + this.limiter + "]";
	}

}
