package dev.workqueue;

import java.time.Duration;
import java.util.List;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metrics hook's events and the time-based figures of {@link WorkQueue#stats()}, with
 * durations driven by a {@link FakeClock}.
 */
class WorkQueueMetricsTests {

	private final FakeClock clock = new FakeClock();

	private final RecordingMetrics metrics = new RecordingMetrics();

	private DelayingQueue<String> queue() {
		return WorkQueues.<String>builder().clock(this.clock).metrics(this.metrics).buildDelayingQueue();
	}

	@Test
	void eventsFollowAnItemThroughAddGetAndDoneWithClockDurations() throws Exception {
		try (DelayingQueue<String> queue = queue()) {
			queue.add("a");
			this.clock.step(Duration.ofSeconds(3));
			assertThat(queue.get()).isEqualTo("a");
			this.clock.step(Duration.ofSeconds(2));
			queue.done("a");
			assertThat(this.metrics.events()).containsExactly("added", "handedOut PT3S", "done PT2S");
		}
	}

	@Test
	void onlyEffectiveAddsCount() throws Exception {
		try (DelayingQueue<String> queue = queue()) {
			queue.add("a");
			queue.add("a");
			queue.get();
			queue.add("a");
			queue.add("a");
			assertThat(this.metrics.events()).containsExactly("added", "handedOut PT0S", "added");
			queue.shutDown();
			queue.add("b");
			assertThat(this.metrics.events()).hasSize(3);
		}
	}

	@Test
	void queueTimeOfAnItemAddedWhileProcessingCountsFromThatAdd() throws Exception {
		try (DelayingQueue<String> queue = queue()) {
			queue.add("a");
			queue.get();
			this.clock.step(Duration.ofSeconds(1));
			queue.add("a");
			this.clock.step(Duration.ofSeconds(4));
			queue.done("a");
			this.clock.step(Duration.ofSeconds(2));
			queue.get();
			assertThat(this.metrics.events()).containsExactly("added", "handedOut PT0S", "added", "done PT5S",
					"handedOut PT6S");
		}
	}

	@Test
	void doneOfAnItemNotBeingProcessedRecordsNothing() {
		try (DelayingQueue<String> queue = queue()) {
			queue.done("a");
			queue.add("a");
			queue.done("a");
			assertThat(this.metrics.events()).containsExactly("added");
		}
	}

	@Test
	void everyAddAfterNotIgnoredIsARetry() {
		try (DelayingQueue<String> queue = queue()) {
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.addAfter("b", Duration.ZERO);
			// A retry is counted once its add went through.
			assertThat(this.metrics.events()).containsExactly("retried", "retried", "added", "retried");
			queue.shutDown();
			queue.addAfter("c", Duration.ZERO);
			queue.addAfter("c", Duration.ofSeconds(1));
			assertThat(this.metrics.events()).hasSize(4);
			assertThat(queue.stats().retries()).isEqualTo(3);
		}
	}

	@Test
	void statsReportDepthProcessingAndTheirAges() throws Exception {
		try (DelayingQueue<String> queue = queue()) {
			queue.add("a");
			queue.add("b");
			queue.add("c");
			this.clock.step(Duration.ofSeconds(1));
			queue.add("d");
			queue.get();
			this.clock.step(Duration.ofSeconds(2));
			queue.get();
			this.clock.step(Duration.ofSeconds(3));
			queue.addAfter("e", Duration.ofHours(1));
			Await.until(() -> queue.stats().waiting() == 1);
			WorkQueueStats stats = queue.stats();
			assertThat(stats.depth()).isEqualTo(2);
			assertThat(stats.processing()).isEqualTo(2);
			assertThat(stats.waiting()).isOne();
			assertThat(stats.retries()).isOne();
			assertThat(Duration.ofNanos(stats.headQueuedNanos())).as("c, added at 0 s")
				.isEqualTo(Duration.ofSeconds(6));
			assertThat(Duration.ofNanos(stats.unfinishedWorkNanos())).as("a for 5 s, b for 3 s")
				.isEqualTo(Duration.ofSeconds(8));
			assertThat(Duration.ofNanos(stats.longestRunningProcessorNanos())).isEqualTo(Duration.ofSeconds(5));
			queue.done("a");
			stats = queue.stats();
			assertThat(stats.processing()).isOne();
			assertThat(Duration.ofNanos(stats.unfinishedWorkNanos())).isEqualTo(Duration.ofSeconds(3));
			assertThat(Duration.ofNanos(stats.longestRunningProcessorNanos())).isEqualTo(Duration.ofSeconds(3));
			queue.done("b");
			queue.get();
			queue.get();
			stats = queue.stats();
			assertThat(stats.depth()).isZero();
			assertThat(stats.headQueuedNanos()).isZero();
		}
	}

	@Test
	void longestRunningProcessorFollowsDoneInAnyOrder() throws Exception {
		try (DelayingQueue<String> queue = queue()) {
			for (String item : new String[] { "a", "b", "c" }) {
				queue.add(item);
				queue.get();
				this.clock.step(Duration.ofSeconds(1));
			}
			queue.done("b");
			assertThat(Duration.ofNanos(queue.stats().longestRunningProcessorNanos())).isEqualTo(Duration.ofSeconds(3));
			queue.done("a");
			assertThat(Duration.ofNanos(queue.stats().longestRunningProcessorNanos())).isEqualTo(Duration.ofSeconds(1));
			queue.done("c");
			WorkQueueStats stats = queue.stats();
			assertThat(stats.longestRunningProcessorNanos()).isZero();
			assertThat(stats.unfinishedWorkNanos()).isZero();
		}
	}

	@Test
	void withoutMetricsTheTimeFiguresReadZero() throws Exception {
		try (WorkQueue<String> queue = WorkQueues.<String>builder().clock(this.clock).buildQueue()) {
			queue.add("a");
			queue.add("b");
			queue.get();
			this.clock.step(Duration.ofSeconds(5));
			assertThat(queue.stats()).isEqualTo(new WorkQueueStats(1, 1, 0, 0, 0, 0, 0, 0));
		}
	}

	@Test
	void pendingCountsItemsAddedAgainWhileProcessingAsClientGoDepthDoes() throws Exception {
		try (DelayingQueue<String> timed = queue();
				WorkQueue<String> untimed = WorkQueues.<String>builder().clock(this.clock).buildQueue()) {
			for (WorkQueue<String> queue : List.of(timed, untimed)) {
				queue.add("a");
				queue.add("b");
				assertThat(queue.get()).isEqualTo("a");
				queue.add("a");
				queue.add("a");
				WorkQueueStats stats = queue.stats();
				assertThat(stats.depth()).as("size(): ready items only").isOne().isEqualTo(queue.size());
				assertThat(stats.addedWhileProcessing()).isOne();
				assertThat(stats.pending()).as("client-go's depth: b, and a added again").isEqualTo(2);
				queue.done("a");
				stats = queue.stats();
				assertThat(stats.depth()).isEqualTo(2);
				assertThat(stats.addedWhileProcessing()).isZero();
				assertThat(stats.pending()).isEqualTo(2);
				queue.get();
				queue.done("b");
				queue.get();
				queue.done("a");
				assertThat(queue.stats().pending()).isZero();
			}
		}
	}

}
