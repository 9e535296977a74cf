/**
 * What integrations (worker containers, metrics, health) use beyond the public queue
 * interfaces, found with {@link dev.workqueue.WorkQueue#capability}: a worker's
 * {@link dev.workqueue.spi.Poller} and the {@link dev.workqueue.spi.SharedWorkQueue} of a
 * backend shared by several processes; the {@link dev.workqueue.spi.TraceContextSource}
 * that a queue stores with each item and hands out as an
 * {@link dev.workqueue.spi.ItemTrace}; and for backends,
 * {@link dev.workqueue.spi.GuardedMetrics}, which keeps a throwing metrics hook away from
 * the queue, {@link dev.workqueue.spi.HandleLifecycle}, the shutdown of a handle on a
 * shared queue, and {@link dev.workqueue.spi.SharedPriorityQueue}, the priority queue
 * over such a handle ({@link dev.workqueue.spi.PriorityHandle}). Applications rarely need
 * it.
 */
package dev.workqueue.spi;
