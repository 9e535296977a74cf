/**
 * Micrometer Observation of worker invocations: each runs in a {@code workqueue.process}
 * observation, so that Micrometer Tracing starts a span per work item.
 */
@NullMarked
package dev.workqueue.spring.observation;

import org.jspecify.annotations.NullMarked;
