/**
 * An operator's look into a queue, on every backend:
 * {@link dev.workqueue.inspect.QueueInspector}, found with {@code WorkQueue.capability}.
 * What the console reads and does.
 */
package dev.workqueue.inspect;
