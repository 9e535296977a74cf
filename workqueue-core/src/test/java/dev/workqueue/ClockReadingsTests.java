package dev.workqueue;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.stream.Stream;

import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How often the queues read their clock on the hot path: a priority queue without a
 * starvation guard reads it no more than the plain queue, whatever the metrics (one
 * engine, one rule).
 */
class ClockReadingsTests {

	static Stream<Named<WorkQueueMetrics>> metrics() {
		return Stream.of(Named.of("no metrics", WorkQueueMetrics.NOOP),
				Named.of("metrics without durations", new WorkQueueMetrics() {

					@Override
					public boolean recordsDurations() {
						return false;
					}

				}), Named.of("metrics with durations", new WorkQueueMetrics() {
				}));
	}

	@ParameterizedTest
	@MethodSource("metrics")
	void aPriorityQueueReadsTheClockAsOftenAsAPlainOne(WorkQueueMetrics metrics) throws Exception {
		int plain = readingsOfACycle(QueueKind.PLAIN, metrics);
		int priority = readingsOfACycle(QueueKind.PRIORITY, metrics);
		assertThat(priority).isEqualTo(plain);
		if (metrics == WorkQueueMetrics.NOOP) {
			assertThat(plain).as("no metrics, nothing waiting: no reading").isZero();
		}
	}

	/** Adds, a duplicate, a hand-out, an add while processing, done, and the rest. */
	private static int readingsOfACycle(QueueKind kind, WorkQueueMetrics metrics) throws Exception {
		CountingClock clock = new CountingClock();
		try (WorkQueue<String> queue = kind.build(WorkQueues.<String>builder().clock(clock).metrics(metrics))) {
			queue.add("a");
			queue.add("b");
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.add("a");
			queue.done("a");
			assertThat(queue.get()).isEqualTo("b");
			queue.done("b");
			assertThat(queue.get()).isEqualTo("a");
			queue.done("a");
		}
		return clock.readings.get();
	}

	private static final class CountingClock implements Clock {

		private final FakeClock clock = new FakeClock();

		final AtomicInteger readings = new AtomicInteger();

		@Override
		public long nanoTime() {
			this.readings.incrementAndGet();
			return this.clock.nanoTime();
		}

		@Override
		public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
			this.clock.awaitUntil(lock, condition, deadlineNanos);
		}

	}

}
