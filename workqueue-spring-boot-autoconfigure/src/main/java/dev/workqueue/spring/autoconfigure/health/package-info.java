/**
 * Auto-configuration of the {@code workqueues} health contributor.
 */
@NullMarked
package dev.workqueue.spring.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
