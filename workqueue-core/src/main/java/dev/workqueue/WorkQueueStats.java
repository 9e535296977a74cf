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
 * @param oldestQueuedNanos how long the oldest ready item has been queued
 * @param unfinishedWorkNanos summed time the items being processed have been in process
 * (client-go's {@code unfinished_work_seconds})
 * @param longestRunningProcessorNanos time the longest-running item has been in process
 */
public record WorkQueueStats(int depth, int processing, int waiting, long retries, long oldestQueuedNanos,
		long unfinishedWorkNanos, long longestRunningProcessorNanos) {

}
