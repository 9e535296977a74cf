/**
 * Auto-configuration of trace context propagation through the work queues.
 */
@NullMarked
package dev.workqueue.spring.autoconfigure.tracing;

import org.jspecify.annotations.NullMarked;
