package dev.workqueue.spring.autoconfigure;

import dev.workqueue.WorkQueueMetrics;

/**
 * Makes the metrics hook of a queue, by name: how the queues the starter builds, on every
 * backend, get their meters. The hook is set on the queue's builder before any customizer
 * runs, so that a customizer may still replace it. The metrics auto-configuration defines
 * one when Micrometer is in use.
 */
@FunctionalInterface
public interface WorkQueueMetricsFactory {

	/**
	 * Returns the hook that records the events of the queue named {@code queueName},
	 * latency timers included.
	 * @param queueName the queue's name
	 * @return the hook
	 */
	WorkQueueMetrics metrics(String queueName);

	/**
	 * Returns the hook that records the events of the queue named {@code queueName}, with
	 * or without the two latency timers (queue duration and work duration), as the
	 * queue's {@code latency-timers} property says: the starter calls this method.
	 * Without them the hook's {@link WorkQueueMetrics#recordsDurations()} is
	 * {@code false}, so the queue measures no durations for it. The default takes
	 * {@link #metrics(String)}'s hook and, without latency timers, hides its durations; a
	 * factory that can leave the timers out altogether overrides it.
	 * @param queueName the queue's name
	 * @param latencyTimers whether to record the latency timers
	 * @return the hook
	 */
	default WorkQueueMetrics metrics(String queueName, boolean latencyTimers) {
		WorkQueueMetrics metrics = metrics(queueName);
		return (latencyTimers || !metrics.recordsDurations()) ? metrics : new CountingMetrics(metrics);
	}

}
