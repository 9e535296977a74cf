package dev.workqueue;

/**
 * Receives one queue's events so that they can be recorded as metrics: the push half of
 * client-go's {@code MetricsProvider}. The gauges (depth, processing, waiting, unfinished
 * work, longest running processor) are the pull half: read {@link WorkQueue#stats()} when
 * a metric is sampled.
 * <p>
 * Called on the hot path, by the thread doing the operation and sometimes while the
 * queue's lock is held: implementations must be thread-safe, fast and must not call back
 * into the queue. Every method does nothing by default; {@link #NOOP} is the default of
 * {@link WorkQueues.Builder}, and with it the queue skips reading its clock altogether.
 * <p>
 * A hook that throws costs that one call and nothing else: queues built by
 * {@link WorkQueues} catch the exception after their state has changed, log the first one
 * with the queue's name, and go on (the item is handed out, queued or done all the same).
 */
public interface WorkQueueMetrics {

	/** Metrics that record nothing. */
	WorkQueueMetrics NOOP = new WorkQueueMetrics() {
	};

	/**
	 * An item was added and was not already queued (client-go's {@code adds_total}).
	 */
	default void added() {
	}

	/**
	 * Whether this hook records the two latencies, {@link #handedOut(long)}'s queue
	 * duration and {@link #done(long)}'s work duration. A hook that answers {@code false}
	 * is never called with them, and the queue reads its clock once per item (when it
	 * hands the item out, for the in-process figures of {@link WorkQueue#stats()})
	 * instead of three times. For queues that hand off millions of items a second, where
	 * recording two timers per item costs more than the hand-off itself. Read once, when
	 * the queue is built.
	 * @return {@code true} (the default) to be called with the durations
	 */
	default boolean recordsDurations() {
		return true;
	}

	/**
	 * An item was handed out by {@code get} or {@code poll}.
	 * @param queuedNanos time from its add to now (client-go's {@code queue_duration})
	 */
	default void handedOut(long queuedNanos) {
	}

	/**
	 * An item was marked done.
	 * @param workNanos time from its hand-out to now (client-go's {@code work_duration})
	 */
	default void done(long workNanos) {
	}

	/**
	 * {@code addAfter} was called (client-go's {@code retries_total}).
	 */
	default void retried() {
	}

	/**
	 * An item's lease ran out before its holder was done, and the item was handed back to
	 * the queue; only queues shared through a lease (such as the Redis backend's) report
	 * it.
	 */
	default void stalled() {
	}

}
