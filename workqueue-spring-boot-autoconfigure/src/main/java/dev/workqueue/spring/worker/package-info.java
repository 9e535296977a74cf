/**
 * Runs {@link dev.workqueue.spring.QueueWorker @QueueWorker} methods: finds them, and
 * runs and stops their worker threads with the application context.
 */
@NullMarked
package dev.workqueue.spring.worker;

import org.jspecify.annotations.NullMarked;
