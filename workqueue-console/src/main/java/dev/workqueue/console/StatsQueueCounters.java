package dev.workqueue.console;

import dev.workqueue.spring.WorkQueueRegistry;

/**
 * Counters from the queues themselves, without Micrometer: retries from
 * {@link dev.workqueue.WorkQueue#stats()}; adds are not counted there.
 */
final class StatsQueueCounters implements QueueCounters {

	private final WorkQueueRegistry queues;

	StatsQueueCounters(WorkQueueRegistry queues) {
		this.queues = queues;
	}

	@Override
	public double adds(String name) {
		return Double.NaN;
	}

	@Override
	public double retries(String name) {
		return this.queues.get(name).stats().retries();
	}

}
