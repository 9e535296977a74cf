/**
 * Actuator endpoint describing the work queues and the workers serving them.
 */
@NullMarked
package dev.workqueue.spring.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
