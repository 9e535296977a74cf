package dev.workqueue.spring.metrics;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import dev.workqueue.WorkQueueMetrics;

/**
 * The {@link WorkQueueMetrics} hook of one queue, recording into meters resolved once
 * when the queue is created. Without the two timers it records no durations: it answers
 * {@code false} to {@link #recordsDurations()}, so that queues do not measure them, and
 * ignores any that a queue passes all the same.
 * <p>
 * Runs on the queue's hot path: each event is one lock-free update of a meter held in a
 * final field, with no registry lookup and no allocation; an add or a done also reads the
 * state of the queue's {@link PriorityLevelWatch}, which hands any registration to
 * another thread. Thread-safe, as the meters are.
 */
final class MicrometerWorkQueueMetrics implements WorkQueueMetrics {

	private final Counter adds;

	private final Counter retries;

	private final @Nullable Timer queueDuration;

	private final @Nullable Timer workDuration;

	private final Counter stalled;

	private final PriorityLevelWatch levels;

	/**
	 * Creates the hook of one queue's meters.
	 * @param adds the adds counter
	 * @param retries the retries counter
	 * @param queueDuration the queue duration timer, {@code null} with
	 * {@code workDuration} to record no durations
	 * @param workDuration the work duration timer, {@code null} with
	 * {@code queueDuration} to record no durations
	 * @param stalled the stalled counter
	 * @param levels told of each add and done, for the gauges of new priority levels
	 */
	MicrometerWorkQueueMetrics(Counter adds, Counter retries, @Nullable Timer queueDuration,
			@Nullable Timer workDuration, Counter stalled, PriorityLevelWatch levels) {
		this.adds = adds;
		this.retries = retries;
		this.queueDuration = queueDuration;
		this.workDuration = workDuration;
		this.stalled = stalled;
		this.levels = levels;
	}

	@Override
	public void added() {
		this.adds.increment();
		this.levels.changed();
	}

	@Override
	public boolean recordsDurations() {
		return this.queueDuration != null;
	}

	@Override
	public void handedOut(long queuedNanos) {
		Timer queueDuration = this.queueDuration;
		if (queueDuration != null) {
			queueDuration.record(queuedNanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void done(long workNanos) {
		// An item added again while processing becomes ready now, perhaps at a new level.
		this.levels.changed();
		Timer workDuration = this.workDuration;
		if (workDuration != null) {
			workDuration.record(workNanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void retried() {
		this.retries.increment();
	}

	@Override
	public void stalled() {
		this.stalled.increment();
	}

	@Override
	public String toString() {
		return "MicrometerWorkQueueMetrics[" + this.adds.getId().getTag(WorkQueueMeters.NAME_TAG) + "]";
	}

}
