package dev.workqueue;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;

/**
 * A {@link WorkQueue} that passes every call on to the queue it wraps: the in-memory
 * wrappers ({@link PlainWorkQueue}, {@link RateLimitingWorkQueue}) add only what they are
 * for. Capabilities are the wrapper's own first, then the wrapped queue's, so that a
 * lookup finds the engine's through any wrapper. Holds no state of its own.
 *
 * @param <T> the item type
 * @param <Q> the type of the wrapped queue
 */
abstract class ForwardingWorkQueue<T, Q extends WorkQueue<T>> implements WorkQueue<T> {

	/** The wrapped queue. */
	final Q queue;

	ForwardingWorkQueue(Q queue) {
		this.queue = queue;
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

	/**
	 * {@inheritDoc}
	 * <p>
	 * A queue interface is answered by this queue alone: the queue it wraps may offer
	 * more (the engine behind a plain queue is a {@link DelayingQueue}), which this
	 * queue's kind leaves out on purpose.
	 */
	@Override
	public <C> Optional<C> capability(Class<C> type) {
		Optional<C> own = WorkQueue.super.capability(type);
		return (own.isPresent() || WorkQueue.class.isAssignableFrom(type)) ? own : this.queue.capability(type);
	}

}
