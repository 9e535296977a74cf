package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.PriorityQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.WorkResult;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link QueueWorker @QueueWorker} methods of a priority queue: the
 * {@code int priority} parameter and the priority kept by retries and requeues. The
 * checks of the parameter at start-up are among {@link QueueWorkerTests}'s.
 */
class PriorityWorkerTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	/** Retries go back at once: a zero exponential backoff. */
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.priority.enabled=true",
				"workqueue.queues.orders.rate-limiter.exponential.base-delay=0ms",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=0ms");

	@Test
	void workerReceivesThePriorityTheItemWasHandedOutWith() {
		run((worker, orders) -> {
			orders.add("a", 7);
			orders.add("b");
			orders.add("c", PriorityQueue.MIN_PRIORITY);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 3);
			assertThat(worker.calls).containsExactlyInAnyOrder(new PriorityQueue.Prioritized<>("a", 7),
					new PriorityQueue.Prioritized<>("b", 0),
					new PriorityQueue.Prioritized<>("c", PriorityQueue.MIN_PRIORITY));
		}, (call) -> null);
	}

	@Test
	void aRetryAfterAFailureKeepsThePriority() {
		run((worker, orders) -> {
			orders.add("a", 7);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 3);
			assertThat(worker.calls).containsOnly(new PriorityQueue.Prioritized<>("a", 7));
		}, (call) -> {
			throw new IllegalStateException("failure");
		}, "workqueue.queues.orders.max-retries=2");
	}

	@Test
	void requeueKeepsThePriority() {
		run((worker, orders) -> {
			orders.add("a", -3);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 3);
			assertThat(worker.calls).containsOnly(new PriorityQueue.Prioritized<>("a", -3));
		}, (call) -> (call.size() < 3) ? WorkResult.requeue() : WorkResult.done());
	}

	@Test
	void requeueAfterKeepsThePriority() {
		run((worker, orders) -> {
			orders.add("a", 42);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 2);
			assertThat(worker.calls).containsOnly(new PriorityQueue.Prioritized<>("a", 42));
		}, (call) -> (call.size() < 2) ? WorkResult.requeueAfter(Duration.ofMillis(10)) : WorkResult.done());
	}

	@Test
	void aWorkerTakingTheItemOnlyServesAPriorityQueueHighestFirst() {
		this.contextRunner.withBean(GatedWorker.class).run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			PriorityQueue<String> orders = (PriorityQueue<String>) context.getBean(WorkQueueRegistry.class)
				.<String>get("orders");
			orders.add("first");
			await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 1);
			orders.add("low", -1);
			orders.add("high", 1);
			worker.openGate();
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 3);
			assertThat(worker.calls).containsExactly("first", "high", "low");
		});
	}

	private void run(PriorityCheck check, Function<List<PriorityQueue.Prioritized<String>>, WorkResult> script,
			String... properties) {
		this.contextRunner.withPropertyValues(properties).withBean(PriorityRecordingWorker.class).run((context) -> {
			PriorityRecordingWorker worker = context.getBean(PriorityRecordingWorker.class);
			worker.script = script;
			check.check(worker, (PriorityQueue<String>) context.getBean(WorkQueueRegistry.class).<String>get("orders"));
		});
	}

	@FunctionalInterface
	interface PriorityCheck {

		void check(PriorityRecordingWorker worker, PriorityQueue<String> orders) throws Exception;

	}

	static class PriorityRecordingWorker {

		final List<PriorityQueue.Prioritized<String>> calls = new CopyOnWriteArrayList<>();

		volatile Function<List<PriorityQueue.Prioritized<String>>, WorkResult> script = (call) -> null;

		@QueueWorker(queue = "orders")
		WorkResult process(String item, int priority) {
			this.calls.add(new PriorityQueue.Prioritized<>(item, priority));
			return this.script.apply(this.calls);
		}

	}

}
