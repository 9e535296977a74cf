package dev.workqueue;

/**
 * The in-memory {@link WorkQueue}: the {@link DelayingWorkQueue} engine without
 * {@code addAfter}, so that only delaying queues are {@link DelayingQueue}s (client-go's
 * {@code Typed} has no {@code AddAfter} either).
 *
 * @param <T> the item type
 */
final class PlainWorkQueue<T> extends ForwardingWorkQueue<T, DelayingWorkQueue<T>> {

	PlainWorkQueue(DelayingWorkQueue<T> engine) {
		super(engine);
	}

	@Override
	public String toString() {
		return "WorkQueue[" + name() + "]";
	}

}
