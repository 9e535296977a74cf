package dev.workqueue.console;

import java.time.Duration;
import java.util.Optional;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.inspect.QueueInspector;

/**
 * A real queue that hides its {@link QueueInspector}: a queue of a backend the console
 * cannot look into.
 *
 * @param <T> the item type
 */
final class UninspectedQueue<T> implements RateLimitingQueue<T> {

	private final RateLimitingQueue<T> queue;

	UninspectedQueue(RateLimitingQueue<T> queue) {
		this.queue = queue;
	}

	@Override
	public <C> Optional<C> capability(Class<C> type) {
		return (type == QueueInspector.class) ? Optional.empty() : this.queue.capability(type);
	}

	@Override
	public void addRateLimited(T item) {
		this.queue.addRateLimited(item);
	}

	@Override
	public void forget(T item) {
		this.queue.forget(item);
	}

	@Override
	public int numRequeues(T item) {
		return this.queue.numRequeues(item);
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
	public WorkQueueStats stats() {
		return this.queue.stats();
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

}
