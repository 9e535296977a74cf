package dev.workqueue;

/**
 * A reading of a queue's gauges at one moment.
 * <p>
 * The time-based figures are tracked only when the queue was built with
 * {@link WorkQueues.Builder#metrics(WorkQueueMetrics) metrics}: without them the queue
 * never reads its clock on the hot path, and they read zero.
 *
 * @param depth items ready to be handed out (the queue's {@code size()})
 * @param processing items handed out and not yet done
 * @param waiting items waiting for a delay (delaying queues only)
 * @param retries {@code addAfter} calls so far (client-go's {@code retries_total})
 * @param headQueuedNanos how long the item next in line has been queued (an item added
 * again while processing lines up behind older ones with its first add's time, so this is
 * not always the oldest)
 * @param unfinishedWorkNanos summed time the items being processed have been in process
 * (client-go's {@code unfinished_work_seconds})
 * @param longestRunningProcessorNanos time the longest-running item has been in process
 * @param addedWhileProcessing items being processed that were added again meanwhile: they
 * line up again once done (client-go's dirty items that are also processing)
 */
public record WorkQueueStats(int depth, int processing, int waiting, long retries, long headQueuedNanos,
		long unfinishedWorkNanos, long longestRunningProcessorNanos, int addedWhileProcessing) {

	/**
	 * Returns client-go's {@code workqueue_depth}: items added and not yet handed out, so
	 * the ready items plus those added again while processing.
	 * @return {@code depth() + addedWhileProcessing()}
	 */
	public int pending() {
		return this.depth + this.addedWhileProcessing;
	}

}
