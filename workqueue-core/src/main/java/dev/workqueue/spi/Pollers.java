package dev.workqueue.spi;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueue;

/**
 * Finds the {@link Poller} of any queue.
 */
public final class Pollers {

	private Pollers() {
	}

	/**
	 * Returns a new poller of {@code queue}: the queue's own, found through
	 * {@link WorkQueue#capability}, or, for a queue without {@link PollerFactory} (one
	 * written by the application), a poller over its public methods. Such a poller's
	 * {@link Poller#wakeup()} ends only the next poll, not one under way; its priorities
	 * are those of {@link PriorityQueue#pollWithPriority} on a priority queue, 0 on
	 * others.
	 * @param queue any queue, not {@code null}
	 * @param <T> the item type
	 * @return a poller, for one worker thread
	 */
	@SuppressWarnings("unchecked")
	public static <T> Poller<T> of(WorkQueue<T> queue) {
		Objects.requireNonNull(queue, "queue");
		return queue.capability(PollerFactory.class)
			.map((factory) -> ((PollerFactory<T>) factory).newPoller())
			.orElseGet(() -> new PlainPoller<>(queue));
	}

	/**
	 * A poller over a queue's public methods: a wake-up ends the next poll.
	 */
	private static final class PlainPoller<T> implements Poller<T> {

		private final WorkQueue<T> queue;

		private volatile boolean woken;

		PlainPoller(WorkQueue<T> queue) {
			this.queue = queue;
		}

		@Override
		public Prioritized<T> poll(Duration timeout) throws InterruptedException {
			Objects.requireNonNull(timeout, "timeout");
			if (this.woken) {
				this.woken = false;
				return null;
			}
			if (this.queue instanceof PriorityQueue<T> priorityQueue) {
				return priorityQueue.pollWithPriority(timeout);
			}
			T item = this.queue.poll(timeout);
			return (item != null) ? new Prioritized<>(item, 0) : null;
		}

		@Override
		public Prioritized<T> doneAndPoll(T done, Duration timeout) throws InterruptedException {
			Objects.requireNonNull(timeout, "timeout");
			this.queue.done(done);
			return poll(timeout);
		}

		@Override
		public void wakeup() {
			this.woken = true;
		}

	}

}
