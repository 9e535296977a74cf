package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fault of an item, a listener or the queue itself costs at most that item: worker
 * threads never die of it.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkerFaultToleranceTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.max-retries=0");

	@Test
	void itemWhoseToStringThrowsIsGivenUpOnByClassAndTheWorkerGoesOn(CapturedOutput output) {
		this.contextRunner.withBean(FailingWorker.class).run((context) -> {
			FailingWorker worker = context.getBean(FailingWorker.class);
			RateLimitingQueue<Object> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			orders.add(new UnprintableItem());
			orders.add("fine");
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 2);
			await().atMost(TIMEOUT).until(() -> output.getOut().contains("whose toString threw"));
			assertThat(output).contains("Gave up on item (an item of " + UnprintableItem.class.getName());
			assertThat(context.getBean(WorkerContainerRegistry.class).containers())
				.allSatisfy((status) -> assertThat(status.running()).isTrue());
		});
	}

	@Test
	void aStackOverflowInTheWorkerIsAFailureOfThatItemAndTheThreadGoesOn(CapturedOutput output) {
		this.contextRunner.withBean(RecursingWorker.class)
			.withPropertyValues("workqueue.queues.orders.concurrency=1", "workqueue.queues.orders.max-retries=2",
					"workqueue.queues.orders.rate-limiter.exponential.base-delay=1ms",
					"workqueue.queues.orders.rate-limiter.exponential.max-delay=1ms")
			.run((context) -> {
				RecursingWorker worker = context.getBean(RecursingWorker.class);
				RateLimitingQueue<Object> orders = context.getBean(WorkQueueRegistry.class).get("orders");
				orders.add("deep");
				orders.add("fine");
				await().atMost(TIMEOUT).until(() -> worker.calls.contains("fine"));
				await().atMost(TIMEOUT).until(() -> worker.calls.stream().filter("deep"::equals).count() == 3);
				await().atMost(TIMEOUT).until(() -> output.getOut().contains("Gave up on item deep"));
				assertThat(context.getBean(WorkerContainerRegistry.class).containers())
					.allSatisfy((status) -> assertThat(status.aliveThreads()).isEqualTo(1));
			});
	}

	@Test
	void itemWhoseHashCodeBreaksWhileProcessingCostsOnlyThatItem(CapturedOutput output) {
		this.contextRunner.withBean(FailingWorker.class).run((context) -> {
			FailingWorker worker = context.getBean(FailingWorker.class);
			RateLimitingQueue<Object> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			orders.add(new HashCodeBreaksAfterFirstCall());
			await().atMost(TIMEOUT).until(() -> output.getOut().contains("could not mark an item of"));
			orders.add("next");
			await().atMost(TIMEOUT).until(() -> worker.calls.contains("next"));
			assertThat(context.getBean(WorkerContainerRegistry.class).containers())
				.allSatisfy((status) -> assertThat(status.aliveThreads()).isEqualTo(1));
		});
	}

	@Test
	void anInterruptAWorkerMethodLeavesBehindIsNotTheNextItemsOwn() {
		this.contextRunner.withBean(InterruptKeepingWorker.class).run((context) -> {
			InterruptKeepingWorker worker = context.getBean(InterruptKeepingWorker.class);
			RateLimitingQueue<Object> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			orders.add("keeps-interrupt");
			await().atMost(TIMEOUT).until(() -> worker.interruptedAtStart.containsKey("keeps-interrupt"));
			// Ready before the worker asks for it: a poll that waited would end the
			// interrupt itself.
			orders.add("next");
			worker.nextAdded.countDown();
			await().atMost(TIMEOUT).until(() -> worker.interruptedAtStart.containsKey("next"));
			assertThat(worker.interruptedAtStart).containsEntry("next", false);
		});
	}

	@Test
	void workerBacksOffWhilePollFailsLogsTheOutageOnceAndResumesByItself(CapturedOutput output) {
		FlakyQueue flaky = new FlakyQueue(5);
		this.contextRunner.withBean(FakeClock.class)
			.withBean("orders", RateLimitingQueue.class, () -> flaky.queue)
			.withBean(FailingWorker.class)
			.run((context) -> {
				FakeClock clock = context.getBean(FakeClock.class);
				FailingWorker worker = context.getBean(FailingWorker.class);
				flaky.queue.add("a");
				// Each step ends the current backoff; the worker tries again.
				await().atMost(TIMEOUT).until(() -> {
					clock.step(Duration.ofSeconds(5));
					return worker.calls.contains("a");
				});
				assertThat(flaky.failedPolls.get()).isEqualTo(5);
				assertThat(occurrences(output.getOut(), "failed to hand out an item to worker")).isOne();
				assertThat(output).contains("Queue 'orders' answers again");
				assertThat(context.getBean(WorkerContainerRegistry.class).containers())
					.allSatisfy((status) -> assertThat(status.running()).isTrue());
			});
	}

	private static int occurrences(String text, String part) {
		Matcher matcher = Pattern.compile(Pattern.quote(part)).matcher(text);
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

	static class FailingWorker {

		final List<Object> calls = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(Object item) {
			this.calls.add((item instanceof String) ? item : item.getClass());
			if (!(item instanceof String)) {
				throw new IllegalStateException("cannot process it");
			}
		}

	}

	static class RecursingWorker {

		final List<Object> calls = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(Object item) {
			this.calls.add(item);
			if ("deep".equals(item)) {
				recurse(0);
			}
		}

		private static int recurse(int depth) {
			return recurse(depth + 1) + 1;
		}

	}

	static class InterruptKeepingWorker {

		final Map<Object, Boolean> interruptedAtStart = new ConcurrentHashMap<>();

		final CountDownLatch nextAdded = new CountDownLatch(1);

		@QueueWorker(queue = "orders")
		public void process(Object item) throws InterruptedException {
			this.interruptedAtStart.put(item, Thread.currentThread().isInterrupted());
			if ("keeps-interrupt".equals(item)) {
				this.nextAdded.await();
				// As a method that catches an interrupt and keeps it for its caller.
				Thread.currentThread().interrupt();
			}
		}

	}

	static final class UnprintableItem {

		@Override
		public String toString() {
			throw new IllegalStateException("no toString");
		}

	}

	/** Breaks as a mutated key does: every hashCode call after the first throws. */
	static final class HashCodeBreaksAfterFirstCall {

		private final AtomicInteger calls = new AtomicInteger();

		@Override
		public int hashCode() {
			if (this.calls.incrementAndGet() > 1) {
				throw new IllegalStateException("mutated key");
			}
			return 7;
		}

	}

	/**
	 * A queue whose {@code get} fails a number of times first, as a queue whose backend
	 * is unreachable does; every other call goes to a real queue.
	 */
	static final class FlakyQueue {

		final AtomicInteger failedPolls = new AtomicInteger();

		final RateLimitingQueue<Object> queue;

		@SuppressWarnings("unchecked")
		FlakyQueue(int failures) {
			RateLimitingQueue<Object> real = WorkQueues.builder()
				.name("orders")
				.buildRateLimitingQueue(new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO));
			this.queue = (RateLimitingQueue<Object>) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { RateLimitingQueue.class }, (proxy, method, args) -> {
						if (method.getName().equals("poll") && this.failedPolls.get() < failures) {
							this.failedPolls.incrementAndGet();
							throw new IllegalStateException("backend unreachable");
						}
						try {
							// A default method (capability) runs on the proxy, so the
							// workers poll the
							// queue through the proxy's public methods, which this test
							// records.
							return method.isDefault() ? InvocationHandler.invokeDefault(proxy, method, args)
									: method.invoke(real, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					});
		}

	}

}
