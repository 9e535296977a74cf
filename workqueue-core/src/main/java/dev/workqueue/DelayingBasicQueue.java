package dev.workqueue;

import dev.workqueue.time.Clock;

/**
 * The in-memory {@link DelayingQueue}: a {@link BasicQueue}, which keeps delayed items
 * itself, under the interface that offers {@code addAfter}. A plain queue is the same
 * class without this interface, so that only delaying queues are {@code DelayingQueue}s.
 *
 * @param <T> the item type
 */
final class DelayingBasicQueue<T> extends BasicQueue<T> implements DelayingQueue<T> {

	DelayingBasicQueue(String name, Clock clock, WorkQueueMetrics metrics, long heartbeatNanos) {
		super(name, clock, metrics, heartbeatNanos);
	}

	@Override
	public String toString() {
		return "DelayingQueue[" + name() + "]";
	}

}
