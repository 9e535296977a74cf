/**
 * Spring API of workqueue: {@link dev.workqueue.spring.QueueWorker @QueueWorker} methods,
 * their {@link dev.workqueue.spring.WorkResult results}, and access to the queue beans.
 */
@NullMarked
package dev.workqueue.spring;

import org.jspecify.annotations.NullMarked;
