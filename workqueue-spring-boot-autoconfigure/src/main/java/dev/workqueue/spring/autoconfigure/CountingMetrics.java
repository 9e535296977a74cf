package dev.workqueue.spring.autoconfigure;

import dev.workqueue.WorkQueueMetrics;

/**
 * A metrics hook without durations: passes the counted events on to another hook and
 * answers {@code false} to {@link #recordsDurations()}, so that the queue measures no
 * durations for it. What {@link WorkQueueMetricsFactory#metrics(String, boolean)} makes
 * of a factory's hook when a queue's latency timers are off.
 */
final class CountingMetrics implements WorkQueueMetrics {

	private final WorkQueueMetrics metrics;

	CountingMetrics(WorkQueueMetrics metrics) {
		this.metrics = metrics;
	}

	@Override
	public boolean recordsDurations() {
		return false;
	}

	@Override
	public void added() {
		this.metrics.added();
	}

	@Override
	public void retried() {
		this.metrics.retried();
	}

	@Override
	public void stalled() {
		this.metrics.stalled();
	}

	@Override
	public String toString() {
		return "CountingMetrics[" + this.metrics + "]";
	}

}
