package dev.workqueue.spring.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import dev.workqueue.WorkQueueMetrics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link WorkQueueMetricsFactory}'s default, for a factory that knows nothing
 * of latency timers.
 */
class WorkQueueMetricsFactoryTests {

	private final List<String> calls = new CopyOnWriteArrayList<>();

	private final WorkQueueMetrics hook = new WorkQueueMetrics() {

		@Override
		public void added() {
			WorkQueueMetricsFactoryTests.this.calls.add("added");
		}

		@Override
		public void handedOut(long queuedNanos) {
			WorkQueueMetricsFactoryTests.this.calls.add("handedOut");
		}

		@Override
		public void done(long workNanos) {
			WorkQueueMetricsFactoryTests.this.calls.add("done");
		}

		@Override
		public void retried() {
			WorkQueueMetricsFactoryTests.this.calls.add("retried");
		}

		@Override
		public void stalled() {
			WorkQueueMetricsFactoryTests.this.calls.add("stalled");
		}

	};

	private final WorkQueueMetricsFactory factory = (queueName) -> this.hook;

	@Test
	void withLatencyTimersTheFactorysHookIsUsedAsItIs() {
		assertThat(this.factory.metrics("orders", true)).isSameAs(this.hook);
	}

	@Test
	void withoutLatencyTimersTheFactorysHookGetsTheCountsOnly() {
		WorkQueueMetrics metrics = this.factory.metrics("orders", false);
		assertThat(metrics.recordsDurations()).isFalse();
		metrics.added();
		metrics.handedOut(1);
		metrics.done(1);
		metrics.retried();
		metrics.stalled();
		assertThat(this.calls).containsExactly("added", "retried", "stalled");
	}

	@Test
	void aHookThatRecordsNoDurationsIsUsedAsItIs() {
		WorkQueueMetrics counting = new WorkQueueMetrics() {

			@Override
			public boolean recordsDurations() {
				return false;
			}

		};
		WorkQueueMetricsFactory factory = (queueName) -> counting;
		assertThat(factory.metrics("orders", false)).isSameAs(counting);
	}

}
