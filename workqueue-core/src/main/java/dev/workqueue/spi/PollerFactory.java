package dev.workqueue.spi;

/**
 * The capability of a queue to give each worker thread a {@link Poller} of its own whose
 * polls a wake-up ends. Queues built by this project have it; find it with
 * {@code queue.capability(PollerFactory.class)}, or simply call {@link Pollers#of}.
 *
 * @param <T> the item type
 */
public interface PollerFactory<T> {

	/**
	 * Returns a new poller, for one worker thread.
	 * @return a poller of this queue
	 */
	Poller<T> newPoller();

}
