package dev.workqueue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ready levels of the in-memory priority queue: counts per priority, highest first,
 * and the age of the oldest ready item of each, tracked when the queue reads its clock
 * for ready ages (with metrics that record durations, or a starvation guard), -1 when it
 * does not.
 */
class PriorityQueueLevelsTests {

	private final FakeClock clock = new FakeClock();

	private PriorityQueue<String> queue(WorkQueues.Builder<String> builder) {
		return builder.clock(this.clock).buildPriorityQueue(RateLimiters.defaultControllerRateLimiter(this.clock));
	}

	private void fill(PriorityQueue<String> queue) {
		queue.add("a", 5);
		this.clock.step(Duration.ofSeconds(2));
		queue.add("b", 5);
		queue.add("c", -3);
		this.clock.step(Duration.ofSeconds(1));
	}

	@Test
	void aQueueWithMetricsTracksTheOldestReadyAgeOfEachPriority() {
		PriorityQueue<String> queue = queue(WorkQueues.<String>builder().metrics(new WorkQueueMetrics() {
		}));
		fill(queue);
		assertThat(queue.readyLevels()).containsExactly(new Level(5, 2, Duration.ofSeconds(3).toNanos()),
				new Level(-3, 1, Duration.ofSeconds(1).toNanos()));
	}

	@Test
	void aQueueWithAStarvationGuardTracksThemToo() {
		PriorityQueue<String> queue = queue(WorkQueues.<String>builder().starvationTimeout(Duration.ofMinutes(1)));
		fill(queue);
		assertThat(queue.readyLevels()).extracting(Level::oldestReadyNanos)
			.containsExactly(Duration.ofSeconds(3).toNanos(), Duration.ofSeconds(1).toNanos());
	}

	@Test
	void aQueueWithMetricsThatRecordNoDurationsDoesNotTrackThem() {
		PriorityQueue<String> queue = queue(WorkQueues.<String>builder().metrics(new WorkQueueMetrics() {

			@Override
			public boolean recordsDurations() {
				return false;
			}

		}));
		fill(queue);
		assertThat(queue.readyLevels()).containsExactly(new Level(5, 2, -1), new Level(-3, 1, -1));
	}

	@Test
	void aQueueWithNeitherReadsNoClockAndSaysItDoesNotKnow() {
		PriorityQueue<String> queue = queue(WorkQueues.<String>builder());
		fill(queue);
		assertThat(queue.readyLevels()).containsExactly(new Level(5, 2, -1), new Level(-3, 1, -1));
	}

}
