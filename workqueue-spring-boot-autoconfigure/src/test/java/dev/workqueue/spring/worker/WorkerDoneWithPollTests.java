package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WakeablePolls;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker thread marks each item done with its next poll, the one call a queue on Redis
 * makes one round trip, and alone only when it stops taking items: paused, or at the end.
 */
class WorkerDoneWithPollTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=2")
		.withBean("orders", RateLimitingQueue.class, this::recordingQueue)
		.withBean(Worker.class);

	@SuppressWarnings("unchecked")
	private RateLimitingQueue<Object> recordingQueue() {
		RateLimitingQueue<Object> real = WorkQueues.builder()
			.name("orders")
			.buildRateLimitingQueue(new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO));
		return (RateLimitingQueue<Object>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RateLimitingQueue.class, WakeablePolls.class }, (proxy, method, args) -> {
					this.calls.computeIfAbsent(method.getName(), (name) -> new AtomicInteger()).incrementAndGet();
					try {
						return method.invoke(real, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

	private int calls(String method) {
		AtomicInteger count = this.calls.get(method);
		return (count != null) ? count.get() : 0;
	}

	@Test
	void eachItemIsMarkedDoneWithTheNextPollAndAloneOncePaused() {
		this.contextRunner.run((context) -> {
			Worker worker = context.getBean(Worker.class);
			RateLimitingQueue<Object> orders = context.getBean("orders", RateLimitingQueue.class);
			List<String> items = IntStream.range(0, 50).mapToObj((i) -> "item-" + i).toList();
			orders.addAll(items);
			await().atMost(TIMEOUT).until(() -> worker.processed.size() == items.size());
			await().atMost(TIMEOUT).until(() -> calls("doneAndPoll") == items.size());
			assertThat(calls("done")).isZero();
			assertThat(orders.size()).isZero();
			// A thread that finds itself paused after its item marks it done alone.
			orders.add("slow");
			await().atMost(TIMEOUT).until(() -> worker.processed.contains("slow"));
			context.getBean(WorkerContainerRegistry.class).setPaused("orders", true);
			worker.release.countDown();
			await().atMost(TIMEOUT).until(() -> calls("done") == 1);
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
