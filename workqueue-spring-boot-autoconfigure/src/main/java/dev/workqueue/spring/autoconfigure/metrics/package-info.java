/**
 * Auto-configuration binding work queues to Micrometer.
 */
@NullMarked
package dev.workqueue.spring.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
