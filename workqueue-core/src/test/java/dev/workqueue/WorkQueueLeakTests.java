package dev.workqueue;

import java.time.Duration;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Items that pass through the queues leave nothing behind in the internal maps, sets and
 * heaps.
 */
class WorkQueueLeakTests {

	@Test
	void millionDistinctItemsThroughTheRateLimitingQueueLeaveNothingBehind() throws Exception {
		FixedDelayRateLimiter<Object> limiter = new FixedDelayRateLimiter<>(Duration.ZERO);
		try (RateLimitingQueue<Integer> queue = WorkQueues.<Integer>builder().buildRateLimitingQueue(limiter)) {
			int batch = 1000;
			for (int start = 0; start < 1_000_000; start += batch) {
				for (int i = start; i < start + batch; i++) {
					if ((i & 1) == 0) {
						queue.add(i);
					}
					else {
						queue.addRateLimited(i);
					}
				}
				for (int i = 0; i < batch; i++) {
					Integer item = queue.poll(Duration.ZERO);
					queue.forget(item);
					queue.done(item);
				}
			}
			assertThat(queue.size()).isZero();
			assertThat(queue.stats().processing()).isZero();
			assertThat(QueueKind.engine(queue).trackedItems()).isZero();
			assertThat(limiter.trackedItems()).isZero();
		}
	}

	@Test
	void delayedItemsThatFallDueLeaveNothingBehind() throws Exception {
		FakeClock clock = new FakeClock();
		int items = 200_000;
		try (DelayingQueue<Integer> queue = WorkQueues.<Integer>builder().clock(clock).buildDelayingQueue()) {
			for (int i = 0; i < items; i++) {
				queue.addAfter(i, Duration.ofMillis(1 + i % 1000));
			}
			assertThat(queue.stats().waiting()).isEqualTo(items);
			clock.step(Duration.ofSeconds(1));
			assertThat(queue.stats().waiting()).isZero();
			int got = 0;
			for (Integer item = queue.poll(Duration.ZERO); item != null; item = queue.poll(Duration.ZERO)) {
				queue.done(item);
				got++;
			}
			assertThat(got).isEqualTo(items);
			assertThat(QueueKind.engine(queue).trackedItems()).isZero();
		}
	}

}
