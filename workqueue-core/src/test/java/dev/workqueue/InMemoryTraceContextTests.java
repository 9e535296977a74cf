package dev.workqueue;

import org.junit.jupiter.api.Test;

import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trace-context rules on the queues {@link WorkQueues} builds, and what only the
 * in-memory queue shows: a queue without a source never asks for one.
 */
class InMemoryTraceContextTests extends TraceContextContract {

	@Override
	protected RateLimitingQueue<String> newQueue(RateLimiter<Object> limiter) {
		return WorkQueues.<String>builder()
			.clock(this.clock)
			.traceContextSource(this.source)
			.buildRateLimitingQueue(limiter);
	}

	@Override
	protected PriorityQueue<String> newPriorityQueue(RateLimiter<Object> limiter) {
		return WorkQueues.<String>builder()
			.clock(this.clock)
			.traceContextSource(this.source)
			.buildPriorityQueue(limiter);
	}

	@Override
	protected int storedTraces(WorkQueue<String> queue) {
		return QueueKind.engine(queue).tracedItems();
	}

	@Test
	void aQueueWithoutASourceHandsOutNoTrace() throws Exception {
		this.current.set("ignored");
		DelayingQueue<String> queue = WorkQueues.<String>builder().buildDelayingQueue();
		Poller<String> poller = Pollers.of(queue);
		queue.add("x");
		assertThat(poller.poll(java.time.Duration.ZERO).item()).isEqualTo("x");
		assertThat(poller.trace()).isNull();
		assertThat(this.captures).hasValue(0);
	}

	@Test
	void aShutDownDropsTheContextsOfWaitingItems() {
		DelayingQueue<String> queue = WorkQueues.<String>builder()
			.clock(this.clock)
			.traceContextSource(this.source)
			.buildDelayingQueue();
		this.current.set("delayed");
		queue.addAfter("x", java.time.Duration.ofSeconds(1));
		assertThat(storedTraces(queue)).isOne();
		queue.shutDown();
		assertThat(storedTraces(queue)).isZero();
	}

	@Test
	void aSourceThatThrowsCostsOnlyTheContext() throws Exception {
		DelayingQueue<String> queue = WorkQueues.<String>builder().traceContextSource(() -> {
			throw new IllegalStateException("no tracer today");
		}).buildDelayingQueue();
		queue.add("x");
		assertThat(queue.poll(java.time.Duration.ZERO)).isEqualTo("x");
		assertThat(storedTraces(queue)).isZero();
	}

	@Test
	void aContextTooLargeIsNotStored() {
		DelayingQueue<String> queue = WorkQueues.<String>builder()
			.traceContextSource(() -> "x".repeat(5000))
			.buildDelayingQueue();
		queue.add("x");
		assertThat(storedTraces(queue)).isZero();
	}

}
