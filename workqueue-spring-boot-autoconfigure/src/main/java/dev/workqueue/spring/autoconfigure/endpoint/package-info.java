/**
 * Auto-configuration of the {@code workqueues} Actuator endpoint.
 */
@NullMarked
package dev.workqueue.spring.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
