package dev.workqueue;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WorkQueueStatsTests {

	@Test
	void theBuilderSetsEachFigureByNameAndLeavesTheOthersZero() {
		assertThat(WorkQueueStats.builder().build()).isEqualTo(new WorkQueueStats(0, 0, 0, 0, 0, 0, 0, 0));
		assertThat(WorkQueueStats.builder().depth(3).addedWhileProcessing(2).build())
			.isEqualTo(new WorkQueueStats(3, 0, 0, 0, 0, 0, 0, 2));
		WorkQueueStats stats = WorkQueueStats.builder()
			.depth(1)
			.processing(2)
			.waiting(3)
			.retries(4)
			.headQueuedNanos(5)
			.unfinishedWorkNanos(6)
			.longestRunningProcessorNanos(7)
			.addedWhileProcessing(8)
			.build();
		assertThat(stats).isEqualTo(new WorkQueueStats(1, 2, 3, 4, 5, 6, 7, 8));
		assertThat(stats.pending()).isEqualTo(9);
	}

}
