package dev.workqueue.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link WorkQueueOperations}, as the auto-configuration registers it.
 */
class WorkQueueOperationsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	/** A retry waits an hour of the fake clock: the test steps it. */
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.max-retries=1",
				"workqueue.queues.orders.rate-limiter.exponential.base-delay=1h",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=1h",
				"workqueue.queues.emails.concurrency=1")
		.withBean(FakeClock.class)
		.withBean(FlakyWorker.class)
		.withBean(GivenUp.class);

	@Test
	void forgetEndsAnItemsRunOfFailuresAndItsBackoff() {
		this.contextRunner.run((context) -> {
			FakeClock clock = context.getBean(FakeClock.class);
			FlakyWorker worker = context.getBean(FlakyWorker.class);
			RateLimitingQueue<Object> orders = context.getBean(WorkQueueRegistry.class).get("orders");
			worker.failures.set(2);
			orders.add("a");
			// Counted and waiting for its retry.
			await().atMost(TIMEOUT).until(() -> orders.stats().waiting() == 1);
			assertThat(orders.numRequeues("a")).isOne();

			context.getBean(WorkQueueOperations.class).forget("orders", "a");

			assertThat(orders.numRequeues("a")).isZero();
			// The second failure is the first again: retried (max-retries 1), not given
			// up.
			clock.step(Duration.ofHours(1));
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 2 && orders.stats().waiting() == 1);
			clock.step(Duration.ofHours(1));
			await().atMost(TIMEOUT).until(() -> worker.done.contains("a"));
			assertThat(context.getBean(GivenUp.class).events).isEmpty();
		});
	}

	@Test
	void concurrencyAndPauseAreSetOnThisInstancesWorkersAndReadBack() {
		this.contextRunner.run((context) -> {
			WorkQueueOperations operations = context.getBean(WorkQueueOperations.class);
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			assertThat(operations.workers("orders")).isEqualTo(new WorkQueueOperations.Workers(1, false));

			operations.setConcurrency("orders", 3);
			operations.setPaused("orders", true);

			assertThat(operations.workers("orders")).isEqualTo(new WorkQueueOperations.Workers(3, true));
			assertThat(workers.isPaused("orders")).isTrue();
			assertThat(workers.containers()).singleElement()
				.satisfies((container) -> assertThat(container.concurrency()).isEqualTo(3));
			operations.setPaused("orders", false);
			assertThat(operations.workers("orders").paused()).isFalse();
			assertThat(operations.workers("emails")).as("no worker")
				.isEqualTo(new WorkQueueOperations.Workers(0, false));
		});
	}

	@Test
	void badRequestsAreRefusedNamingTheArgumentOrTheQueue() {
		this.contextRunner.run((context) -> {
			WorkQueueOperations operations = context.getBean(WorkQueueOperations.class);
			assertThatIllegalArgumentException().isThrownBy(() -> operations.setConcurrency("orders", 0))
				.withMessageContaining("concurrency must be at least 1");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.setConcurrency("orders", 1025))
				.withMessageContaining("concurrency must be at most 1024");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.setConcurrency("emails", 2))
				.withMessageContaining("No worker serves queue 'emails'");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.setPaused("nope", true))
				.withMessageContaining("'nope'");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.workers("nope"))
				.withMessageContaining("'nope'");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.forget("nope", "a"))
				.withMessageContaining("nope");
		});
	}

	@Test
	void anOperationsBeanOfTheApplicationsWins() {
		this.contextRunner
			.withBean("myOperations", WorkQueueOperations.class,
					() -> new WorkQueueOperations(mock(WorkQueueRegistry.class), mock(WorkerContainerRegistry.class)))
			.run((context) -> assertThat(context).getBeanNames(WorkQueueOperations.class)
				.containsExactly("myOperations"));
	}

	static class FlakyWorker {

		/** How many of the next calls throw. */
		final AtomicInteger failures = new AtomicInteger();

		final List<Object> calls = new CopyOnWriteArrayList<>();

		final List<Object> done = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(String item) {
			this.calls.add(item);
			if (this.failures.getAndDecrement() > 0) {
				throw new IllegalStateException("flaky");
			}
			this.done.add(item);
		}

	}

	static class GivenUp implements ApplicationListener<WorkItemGivenUpEvent> {

		final List<WorkItemGivenUpEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onApplicationEvent(WorkItemGivenUpEvent event) {
			this.events.add(event);
		}

	}

}
