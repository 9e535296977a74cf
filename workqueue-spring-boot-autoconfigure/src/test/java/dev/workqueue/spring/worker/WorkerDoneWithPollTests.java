package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker thread takes items through a poller of its own, which it gets from the queue's
 * {@link dev.workqueue.spi.PollerFactory}, and marks each item done with its next poll,
 * the one call a queue on Redis makes one round trip, and alone only when it stops taking
 * items: paused, or at the end.
 */
class WorkerDoneWithPollTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final SeamQueues.Record record = new SeamQueues.Record();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=2")
		.withBean("orders", RateLimitingQueue.class, this::recordingQueue)
		.withBean(Worker.class);

	private RateLimitingQueue<Object> recordingQueue() {
		RateLimitingQueue<Object> real = WorkQueues.builder()
			.name("orders")
			.buildRateLimitingQueue(new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO));
		return SeamQueues.capable(real, this.record, SeamQueues.pollersOf(real), false);
	}

	private int doneAndPolls() {
		return this.record.pollers.stream().mapToInt((poller) -> poller.doneAndPolls.get()).sum();
	}

	@Test
	void eachItemIsMarkedDoneWithTheNextPollAndAloneOncePaused() {
		this.contextRunner.run((context) -> {
			Worker worker = context.getBean(Worker.class);
			RateLimitingQueue<Object> orders = context.getBean("orders", RateLimitingQueue.class);
			await().atMost(TIMEOUT).until(() -> this.record.pollers.size() == 2);
			List<String> items = IntStream.range(0, 50).mapToObj((i) -> "item-" + i).toList();
			orders.addAll(items);
			await().atMost(TIMEOUT).until(() -> worker.processed.size() == items.size());
			await().atMost(TIMEOUT).until(() -> doneAndPolls() == items.size());
			assertThat(this.record.calls("done")).isZero();
			assertThat(this.record.calls("poll")).as("the threads poll through their pollers only").isZero();
			assertThat(orders.size()).isZero();
			assertThat(this.record.pollers).as("one poller per thread, for good").hasSize(2);
			// A thread that finds itself paused after its item marks it done alone.
			orders.add("slow");
			await().atMost(TIMEOUT).until(() -> worker.processed.contains("slow"));
			context.getBean(WorkerContainerRegistry.class).setPaused("orders", true);
			assertThat(this.record.pollers).as("the pause wakes the poller of every thread")
				.allSatisfy((poller) -> assertThat(poller.wakeups).hasPositiveValue());
			worker.release.countDown();
			await().atMost(TIMEOUT).until(() -> this.record.calls("done") == 1);
			assertThat(doneAndPolls()).isEqualTo(items.size());
			orders.add("slow");
			assertThat(orders.size()).as("done: queued again at once, not dirty").isOne();
		});
	}

	static class Worker {

		final Set<String> processed = ConcurrentHashMap.newKeySet();

		final CountDownLatch release = new CountDownLatch(1);

		@QueueWorker(queue = "orders")
		void process(String item) throws InterruptedException {
			this.processed.add(item);
			if (item.equals("slow")) {
				this.release.await();
			}
		}

	}

}
