package dev.workqueue;

import java.time.Duration;
import java.util.Optional;

/**
 * The in-memory {@link WorkQueue}: the {@link DelayingWorkQueue} engine without
 * {@code addAfter}, so that only delaying queues are {@link DelayingQueue}s (client-go's
 * {@code Typed} has no {@code AddAfter} either). Forwards everything; its capabilities
 * are the engine's.
 *
 * @param <T> the item type
 */
final class PlainWorkQueue<T> implements WorkQueue<T> {

	private final DelayingWorkQueue<T> engine;

	PlainWorkQueue(DelayingWorkQueue<T> engine) {
		this.engine = engine;
	}

	@Override
	public void add(T item) {
		this.engine.add(item);
	}

	@Override
	public T get() throws InterruptedException {
		return this.engine.get();
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		return this.engine.poll(timeout);
	}

	@Override
	public void done(T item) {
		this.engine.done(item);
	}

	@Override
	public int size() {
		return this.engine.size();
	}

	@Override
	public void shutDown() {
		this.engine.shutDown();
	}

	@Override
	public void shutDownWithDrain() {
		this.engine.shutDownWithDrain();
	}

	@Override
	public boolean isShuttingDown() {
		return this.engine.isShuttingDown();
	}

	@Override
	public String name() {
		return this.engine.name();
	}

	@Override
	public WorkQueueStats stats() {
		return this.engine.stats();
	}

	@Override
	public <C> Optional<C> capability(Class<C> type) {
		return WorkQueue.super.capability(type).or(() -> this.engine.capability(type));
	}

	/** The engine. */
	DelayingWorkQueue<T> engine() {
		return this.engine;
	}

	@Override
	public String toString() {
		return "WorkQueue[" + name() + "]";
	}

}
