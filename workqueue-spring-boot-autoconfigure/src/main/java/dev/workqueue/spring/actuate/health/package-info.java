/**
 * Health indicator reporting whether the work queues' worker containers are running.
 */
@NullMarked
package dev.workqueue.spring.actuate.health;

import org.jspecify.annotations.NullMarked;
