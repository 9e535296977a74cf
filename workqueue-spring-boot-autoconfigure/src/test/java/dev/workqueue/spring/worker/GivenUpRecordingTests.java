package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spring.FakeInspector;
import dev.workqueue.spring.InspectableQueues;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkItemGivenUpEvent;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests that a worker's give-up keeps the item with its queue's
 * {@link dev.workqueue.inspect.QueueInspector}, before the event, and that a record that
 * cannot be written costs nothing else.
 */
@ExtendWith(OutputCaptureExtension.class)
class GivenUpRecordingTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final FakeInspector inspector = new FakeInspector();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.max-retries=1")
		.withBean("orders", RateLimitingQueue.class,
				() -> InspectableQueues.of(WorkQueues.builder()
					.name("orders")
					.buildRateLimitingQueue(new ItemExponentialFailureRateLimiter<>(Duration.ZERO, Duration.ZERO)),
						this.inspector))
		.withBean(FailingWorker.class)
		.withBean(KeptAtEvent.class, this.inspector);

	@Test
	void aGivenUpItemIsKeptWithItsAttemptsAndReasonBeforeTheEvent() {
		this.contextRunner.run((context) -> {
			queue(context.getBean("orders")).add("bad");
			KeptAtEvent events = context.getBean(KeptAtEvent.class);
			await().atMost(TIMEOUT).until(() -> events.keptAtEvent.size() == 1);
			assertThat(this.inspector.kept)
				.containsExactly(new FakeInspector.Kept("bad", 2, "java.lang.IllegalStateException: no stock for bad"));
			assertThat(events.keptAtEvent).containsExactly(1);
		});
	}

	@Test
	void aRecordThatCannotBeWrittenIsLoggedAndTheEventAndTheWorkerGoOn(CapturedOutput output) {
		this.inspector.failure = new IllegalStateException("store down");
		this.contextRunner.run((context) -> {
			RateLimitingQueue<Object> orders = queue(context.getBean("orders"));
			orders.add("bad");
			orders.add("good");
			KeptAtEvent events = context.getBean(KeptAtEvent.class);
			FailingWorker worker = context.getBean(FailingWorker.class);
			await().atMost(TIMEOUT).until(() -> events.keptAtEvent.size() == 1 && worker.done.contains("good"));
			assertThat(output).contains("Could not keep given-up item bad of queue 'orders'").contains("store down");
			assertThat(context.getBean(WorkerContainerRegistry.class).containers())
				.allSatisfy((status) -> assertThat(status.aliveThreads()).isEqualTo(1));
		});
	}

	@Test
	void theReasonIsTheFailuresClassAndMessageCutShort() {
		assertThat(WorkOutcomes.reason(new IllegalStateException("no stock")))
			.isEqualTo("java.lang.IllegalStateException: no stock");
		assertThat(WorkOutcomes.reason(new IllegalStateException())).isEqualTo("java.lang.IllegalStateException");
		String cut = WorkOutcomes.reason(new IllegalStateException("x".repeat(5000)));
		assertThat(cut).hasSize(WorkOutcomes.MAX_REASON_LENGTH)
			.startsWith("java.lang.IllegalStateException: xxx")
			.endsWith("x…");
	}

	@SuppressWarnings("unchecked")
	private static RateLimitingQueue<Object> queue(Object bean) {
		return (RateLimitingQueue<Object>) bean;
	}

	static class FailingWorker {

		final List<Object> done = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		public void process(Object item) {
			if ("bad".equals(item)) {
				throw new IllegalStateException("no stock for " + item);
			}
			this.done.add(item);
		}

	}

	/**
	 * Notes how many items the inspector had kept when each event came.
	 */
	static class KeptAtEvent implements ApplicationListener<WorkItemGivenUpEvent> {

		final List<Integer> keptAtEvent = new CopyOnWriteArrayList<>();

		private final FakeInspector inspector;

		KeptAtEvent(FakeInspector inspector) {
			this.inspector = inspector;
		}

		@Override
		public void onApplicationEvent(WorkItemGivenUpEvent event) {
			this.keptAtEvent.add(this.inspector.kept.size());
		}

	}

}
