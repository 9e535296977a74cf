package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
 * {@code int priority} parameter, the priority kept by retries and requeues, and the
 * checks of the parameter at start-up.
 */
class PriorityWorkerTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	/** Retries go back at once: a zero exponential backoff. */
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.priority.enabled=true",
				"workqueue.queues.orders.rate-limiter.exponential.base-delay=0ms",
				"workqueue.queues.orders.rate-limiter.exponential.max-delay=0ms",
				"workqueue.queues.plain.concurrency=1");

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

	@ParameterizedTest(name = "{0}")
	@MethodSource("wrongWorkers")
	void wrongSecondParameterFailsStartUpNamingTheMethod(Class<?> worker, String message) {
		this.contextRunner.withBean(worker).run((context) -> {
			assertThat(context).getFailure().rootCause().isInstanceOf(InvalidQueueWorkerException.class);
			assertThat(context.getStartupFailure()).rootCause().hasMessage(message);
		});
	}

	static Stream<Arguments> wrongWorkers() {
		String prefix = "@QueueWorker method " + PriorityWorkerTests.class.getName() + "$";
		return Stream.of(
				Arguments.of(PlainQueuePriorityWorker.class,
						prefix + "PlainQueuePriorityWorker.process(String, int) takes the priority as its second "
								+ "parameter, but queue 'plain' is not a priority queue (set "
								+ "workqueue.queues.plain.priority.enabled=true, or take the item only)"),
				Arguments.of(LongPriorityWorker.class,
						prefix + "LongPriorityWorker.process(String, long) must take "
								+ "an int priority as its second parameter, but takes long"),
				Arguments.of(BoxedPriorityWorker.class,
						prefix + "BoxedPriorityWorker.process(String, Integer) must "
								+ "take an int priority as its second parameter, but takes java.lang.Integer"),
				Arguments.of(ThreeParameterWorker.class,
						prefix + "ThreeParameterWorker.process(String, int, int) must take the item, and on a "
								+ "priority queue maybe an int priority, but takes 3 parameters"));
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

	static class PlainQueuePriorityWorker {

		@QueueWorker(queue = "plain")
		void process(String item, int priority) {
		}

	}

	static class LongPriorityWorker {

		@QueueWorker(queue = "orders")
		void process(String item, long priority) {
		}

	}

	static class BoxedPriorityWorker {

		@QueueWorker(queue = "orders")
		void process(String item, Integer priority) {
		}

	}

	static class ThreeParameterWorker {

		@QueueWorker(queue = "orders")
		void process(String item, int priority, int other) {
		}

	}

}
