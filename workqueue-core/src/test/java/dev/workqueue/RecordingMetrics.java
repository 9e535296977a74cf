package dev.workqueue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link WorkQueueMetrics} that records every event as a readable string, durations in
 * {@link Duration#toString()} form: {@code "added"}, {@code "handedOut PT1S"},
 * {@code "done PT2S"}, {@code "retried"}.
 */
final class RecordingMetrics implements WorkQueueMetrics {

	private final List<String> events = new CopyOnWriteArrayList<>();

	@Override
	public void added() {
		this.events.add("added");
	}

	@Override
	public void handedOut(long queuedNanos) {
		this.events.add("handedOut " + Duration.ofNanos(queuedNanos));
	}

	@Override
	public void done(long workNanos) {
		this.events.add("done " + Duration.ofNanos(workNanos));
	}

	@Override
	public void retried() {
		this.events.add("retried");
	}

	List<String> events() {
		return List.copyOf(this.events);
	}

}
