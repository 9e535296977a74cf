package dev.workqueue.spring.metrics;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;

import dev.workqueue.WorkQueueMetrics;

/**
 * The {@link WorkQueueMetrics} hook of one queue, recording into meters resolved once
 * when the queue is created.
 * <p>
 * Runs on the queue's hot path: each event is one lock-free update of a meter held in a
 * final field, with no registry lookup and no allocation. Thread-safe, as the meters are.
 */
final class MicrometerWorkQueueMetrics implements WorkQueueMetrics {

	private final Counter adds;

	private final Counter retries;

	private final Timer queueDuration;

	private final Timer workDuration;

	private final Counter stalled;

	MicrometerWorkQueueMetrics(Counter adds, Counter retries, Timer queueDuration, Timer workDuration,
			Counter stalled) {
		this.adds = adds;
		this.retries = retries;
		this.queueDuration = queueDuration;
		this.workDuration = workDuration;
		this.stalled = stalled;
	}

	@Override
	public void added() {
		this.adds.increment();
	}

	@Override
	public void handedOut(long queuedNanos) {
		this.queueDuration.record(queuedNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void done(long workNanos) {
		this.workDuration.record(workNanos, TimeUnit.NANOSECONDS);
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
