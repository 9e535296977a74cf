/**
 * Micrometer meters for work queues, named after Kubernetes client-go's workqueue
 * metrics.
 */
@NullMarked
package dev.workqueue.spring.metrics;

import org.jspecify.annotations.NullMarked;
