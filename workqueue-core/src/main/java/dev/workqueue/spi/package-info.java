/**
 * What integrations (worker containers, metrics, health) use beyond the public queue
 * interfaces, found with {@link dev.workqueue.WorkQueue#capability}: a worker's
 * {@link dev.workqueue.spi.Poller} and the {@link dev.workqueue.spi.SharedWorkQueue} of a
 * backend shared by several processes. Applications rarely need it.
 */
package dev.workqueue.spi;
