package dev.workqueue.spi;

import java.time.Duration;

/**
 * A work queue whose state several processes share, each through a handle of its own (the
 * Redis backend's queues). Integrations use it where one process's view differs from the
 * shared one: metrics, shutdown and health. Find it behind a queue with
 * {@code queue.capability(SharedWorkQueue.class)}.
 */
public interface SharedWorkQueue {

	/**
	 * Returns whether this handle reports the shared gauges (depth, waiting items) for
	 * every handle. One handle at a time does, so that a gauge summed over the processes
	 * gives the shared figure once; the others report zero.
	 * @return whether this handle is the reporter now
	 */
	boolean reportsSharedGauges();

	/**
	 * Hands every item this handle holds back to the queue at once, unprocessed, for a
	 * shutdown whose workers did not finish in time; other processes take them over.
	 * @return how many items were handed back
	 */
	int handBack();

	/**
	 * Hands one item this handle holds back to the queue, ready again after
	 * {@code delay}, and ends this handle's hold on it (a later {@code done} changes
	 * nothing): how a worker requeues an item it failed while its handle is shutting down
	 * and takes no more adds, so that another process retries it.
	 * @param item an item handed out by this handle and not yet done
	 * @param delay how long until it is ready again; zero or negative for at once
	 * @return whether the item was held here and is handed back
	 */
	boolean handBack(Object item, Duration delay);

	/**
	 * Returns whether the shared state can be reached now (for health checks).
	 * @return {@code false} while the last attempt to reach it failed
	 */
	default boolean reachable() {
		return true;
	}

	/**
	 * Says why the shared state cannot be used now, for health checks (which then report
	 * the queue down): {@code "unreachable"}, or a reason of the store's own, such as a
	 * read-only database.
	 * @return what is wrong, {@code null} while {@link #reachable()}
	 */
	default String failure() {
		return reachable() ? null : "unreachable";
	}

	/**
	 * Says what an operator should know that does not stop the queue (health stays up and
	 * shows it), such as another session holding back the store's cleanup.
	 * @return the warning, {@code null} for none
	 */
	default String warning() {
		return null;
	}

}
