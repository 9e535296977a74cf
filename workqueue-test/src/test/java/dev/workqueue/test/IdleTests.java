package dev.workqueue.test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class IdleTests {

	private final FakeClock clock = new FakeClock();

	@Test
	void returnsOnceTheWorkerHasDoneEveryItem() throws Exception {
		try (WorkQueue<String> queue = WorkQueues.<String>builder().name("orders").buildQueue()) {
			queue.add("a");
			queue.add("b");
			CompletableFuture<Void> worker = CompletableFuture.runAsync(() -> {
				try {
					for (int i = 0; i < 2; i++) {
						queue.done(queue.get());
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			Idle.await(queue, Duration.ofSeconds(5));
			assertThat(queue.stats().processing()).isZero();
			assertThat(queue.size()).isZero();
			worker.get();
		}
	}

	@Test
	void timesOutListingEveryBusyQueueWithItsCounts() throws Exception {
		Map<String, RateLimitingQueue<String>> queues = new LinkedHashMap<>();
		for (String name : List.of("orders", "invoices", "idle")) {
			queues.put(name,
					WorkQueues.<String>builder()
						.name(name)
						.clock(this.clock)
						.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter(this.clock)));
		}
		try {
			RateLimitingQueue<String> orders = queues.get("orders");
			orders.add("a");
			orders.add("b");
			orders.get();
			orders.addAfter("c", Duration.ofMinutes(1));
			queues.get("invoices").add("x");
			WorkQueueRegistry registry = new WorkQueueRegistry() {

				@Override
				@SuppressWarnings("unchecked")
				public <T> RateLimitingQueue<T> get(String name) {
					return (RateLimitingQueue<T>) queues.get(name);
				}

				@Override
				public Set<String> names() {
					return queues.keySet();
				}

			};
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> Idle.await(registry, Duration.ofMillis(50)))
				.withMessage("Work queues not idle after PT0.05S: 'invoices' has 1 ready, 0 processing, 0 waiting; "
						+ "'orders' has 1 ready, 1 processing, 1 waiting. "
						+ "Delayed items wait for their time: with a FakeClock, step it.");
		}
		finally {
			queues.values().forEach(WorkQueue::shutDown);
		}
	}

	@Test
	void aDelayedItemCountsUntilTheClockIsSteppedAndItIsDone() throws Exception {
		try (DelayingQueue<String> queue = WorkQueues.<String>builder()
			.name("orders")
			.clock(this.clock)
			.buildDelayingQueue()) {
			queue.addAfter("a", Duration.ofSeconds(1));
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> Idle.await(queue, Duration.ZERO));
			this.clock.step(Duration.ofSeconds(1));
			queue.done(queue.get());
			Idle.await(queue, Duration.ofSeconds(5));
		}
	}

	@Test
	void aNegativeTimeoutIsRefused() {
		try (WorkQueue<String> queue = WorkQueues.<String>builder().buildQueue()) {
			assertThatIllegalArgumentException().isThrownBy(() -> Idle.await(queue, Duration.ofMillis(-1)))
				.withMessage("timeout must not be negative, was PT-0.001S");
		}
	}

}
