/**
 * Auto-configuration of work queues: queue beans from {@code workqueue.*} properties and
 * the worker threads of {@link dev.workqueue.spring.QueueWorker @QueueWorker} methods.
 */
@NullMarked
package dev.workqueue.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
