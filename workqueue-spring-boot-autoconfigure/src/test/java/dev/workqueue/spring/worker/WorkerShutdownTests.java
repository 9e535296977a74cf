package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkQueueOperations;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for how {@link WorkerContainerRegistry} stops: drain, timeout, report, phase.
 */
@ExtendWith(OutputCaptureExtension.class)
class WorkerShutdownTests {

	/**
	 * How long a test waits for what must happen; a passing wait ends as soon as it does.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=1", "workqueue.queues.emails.concurrency=1")
		.withBean(GatedWorker.class);

	@Test
	void closeDrainsWhatIsQueuedAndIgnoresLaterAdds(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			RateLimitingQueue<String> orders = queue(context, "orders");
			orders.add("a");
			orders.add("b");
			orders.add("c");
			await().atMost(TIMEOUT).until(() -> worker.started.contains("a"));
			CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
			try {
				await().atMost(TIMEOUT).until(orders::isShuttingDown);
				orders.add("late");
				assertThat(closing).isNotDone();
			}
			finally {
				worker.gate.countDown();
			}
			closing.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(worker.finished).containsExactly("a", "b", "c");
			assertThat(output).doesNotContain("stopped with work left")
				.contains("Queue 'orders' draining: 1 in flight, 2 queued; waiting at most 30000ms "
						+ "(its shutdown-timeout)")
				.containsPattern("INFO .* Queue 'orders' drained in \\d+ms");
		});
	}

	@Test
	void aShutdownTimeoutBeyondWhatMillisecondsCountStillDrainsEveryQueue(CapturedOutput output) {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.shutdown-timeout=" + Long.MAX_VALUE + "s")
			.run((context) -> {
				GatedWorker worker = context.getBean(GatedWorker.class);
				queue(context, "orders").add("a");
				queue(context, "emails").add("b");
				worker.gate.countDown();
				await().atMost(TIMEOUT).until(() -> worker.finished.size() == 2);
				context.close();
				assertThat(output)
					.contains("Queue 'orders' draining: 0 in flight, 0 queued; waiting at most "
							+ Long.MAX_VALUE / 1_000_000 + "ms")
					.containsPattern("Queue 'orders' drained in \\d+ms")
					.containsPattern("Queue 'emails' drained in \\d+ms");
			});
	}

	@Test
	void closeStopsWaitingAtTheShutdownTimeoutAndReportsWhatIsLeft(CapturedOutput output) {
		this.contextRunner.withBean(FakeClock.class)
			.withPropertyValues("workqueue.queues.orders.shutdown-timeout=5s")
			.run((context) -> {
				GatedWorker worker = context.getBean(GatedWorker.class);
				FakeClock clock = context.getBean(FakeClock.class);
				RateLimitingQueue<String> orders = queue(context, "orders");
				orders.add("a");
				orders.add("b");
				orders.add("c");
				await().atMost(TIMEOUT).until(() -> worker.started.contains("a"));
				CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
				try {
					// The drain's deadline is set before this line (an idle emails worker
					// already waits on the clock, in its poll).
					await().atMost(TIMEOUT).until(() -> output.getAll().contains("Queue 'orders' draining"));
					clock.step(Duration.ofMillis(4999));
					assertThat(closing).isNotDone();
					clock.step(Duration.ofMillis(1));
					closing.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
					assertThat(output).contains("Queue 'orders' stopped with work left after its shutdown-timeout of "
							+ "5000ms: 2 queued, 1 in flight, 0 delayed or requeued and dropped (drain took 5000ms)");
					// The busy worker was interrupted and took nothing more.
					await().atMost(TIMEOUT).until(() -> worker.interrupted.contains("a"));
					assertThat(worker.started).containsExactly("a");
				}
				finally {
					worker.gate.countDown();
				}
			});
	}

	/**
	 * Close ends with the queue's {@code shutDownWithDrain} once the workers have ended:
	 * an item a consumer of the application's own holds is waited for too, within the
	 * shutdown-timeout.
	 */
	@Test
	void closeWaitsForAnItemAConsumerOfTheApplicationsOwnHolds(CapturedOutput output) {
		this.contextRunner.withBean(FakeClock.class)
			.withPropertyValues("workqueue.queues.orders.shutdown-timeout=5s")
			.run((context) -> {
				context.getBean(GatedWorker.class).gate.countDown();
				context.getBean(WorkQueueOperations.class).setPaused("orders", true);
				RateLimitingQueue<String> orders = queue(context, "orders");
				orders.add("held");
				String held = orders.get();
				CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
				await().atMost(TIMEOUT)
					.until(() -> Thread.getAllStackTraces()
						.keySet()
						.stream()
						.anyMatch((thread) -> thread.getName().equals("workqueue-orders-drain")
								&& thread.getState() == Thread.State.WAITING));
				assertThat(closing).isNotDone();
				orders.done(held);
				closing.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				assertThat(output).containsPattern("Queue 'orders' drained in \\d+ms");
			});
	}

	@Test
	void delayedItemsAreDroppedAtShutdownAndCounted(CapturedOutput output) {
		this.contextRunner.withBean(FakeClock.class).run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			worker.gate.countDown();
			RateLimitingQueue<String> orders = queue(context, "orders");
			orders.addAfter("later", Duration.ofHours(1));
			orders.add("a");
			await().atMost(TIMEOUT).until(() -> worker.finished.contains("a"));
			context.close();
			assertThat(output).contains(
					"Queue 'orders' stopped with work left: 0 queued, 0 in flight, 1 delayed or requeued and dropped");
			assertThat(worker.started).containsExactly("a");
		});
	}

	@Test
	void queuesDrainInParallelWithinTheLongestTimeout(CapturedOutput output) {
		this.contextRunner.withBean(FakeClock.class)
			.withPropertyValues("workqueue.queues.orders.shutdown-timeout=5s",
					"workqueue.queues.emails.shutdown-timeout=10s")
			.run((context) -> {
				GatedWorker worker = context.getBean(GatedWorker.class);
				FakeClock clock = context.getBean(FakeClock.class);
				CompletableFuture<Void> closing = closeWhileBothQueuesWork(context);
				try {
					// Both deadlines count from the same moment.
					clock.step(Duration.ofSeconds(10));
					closing.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				}
				finally {
					worker.gate.countDown();
				}
				assertThat(output)
					.contains("Queue 'orders' stopped with work left after its shutdown-timeout of 5000ms: "
							+ "0 queued, 1 in flight, 0 delayed or requeued and dropped")
					.contains("Queue 'emails' stopped with work left after its shutdown-timeout of 10000ms: "
							+ "0 queued, 1 in flight, 0 delayed or requeued and dropped");
			});
	}

	@Test
	void aQueueWithTheShorterTimeoutStopsAtItsOwnDeadline() {
		this.contextRunner.withBean(FakeClock.class)
			.withPropertyValues("workqueue.queues.orders.shutdown-timeout=60s",
					"workqueue.queues.emails.shutdown-timeout=5s")
			.run((context) -> {
				GatedWorker worker = context.getBean(GatedWorker.class);
				FakeClock clock = context.getBean(FakeClock.class);
				CompletableFuture<Void> closing = closeWhileBothQueuesWork(context);
				try {
					clock.step(Duration.ofSeconds(5));
					await().atMost(TIMEOUT).until(() -> worker.interrupted.contains("e"));
					assertThat(worker.interrupted).as("orders has 55 s left").doesNotContain("a");
				}
				finally {
					worker.gate.countDown();
					clock.step(Duration.ofSeconds(60));
				}
				closing.get(10, TimeUnit.SECONDS);
			});
	}

	/**
	 * Starts closing the context while a worker of each queue holds an item ("a" of
	 * orders, "e" of emails), and returns once the drains wait on the fake clock.
	 */
	private static CompletableFuture<Void> closeWhileBothQueuesWork(AssertableApplicationContext context) {
		GatedWorker worker = context.getBean(GatedWorker.class);
		queue(context, "orders").add("a");
		queue(context, "emails").add("e");
		await().atMost(TIMEOUT).until(() -> worker.started.containsAll(List.of("a", "e")));
		CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
		await().atMost(TIMEOUT).until(context.getBean(FakeClock.class)::hasWaiters);
		return closing;
	}

	@ParameterizedTest(name = "phase {0}")
	@MethodSource("webServerPhases")
	void itemsAddedWhileTheWebServerShutsDownAreStillProcessed(int phase) {
		this.contextRunner.withBean(InFlightRequests.class, phase).run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			InFlightRequests requests = context.getBean(InFlightRequests.class);
			worker.gate.countDown();
			context.close();
			assertThat(requests.added).isTrue();
			assertThat(worker.finished).containsExactly("added-by-request");
		});
	}

	static Stream<Integer> webServerPhases() {
		// Boot 4: GRACEFUL_SHUTDOWN_PHASE, START_STOP_LIFECYCLE_PHASE
		return Stream.of(SmartLifecycle.DEFAULT_PHASE - 1024, SmartLifecycle.DEFAULT_PHASE - 2048);
	}

	@Test
	void phaseIsBelowTheWebServerPhases() {
		assertThat(WorkerContainerRegistry.PHASE).isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048);
	}

	@Test
	void registryCannotBeRestartedOnceStopped() {
		this.contextRunner.run((context) -> {
			WorkerContainerRegistry registry = context.getBean(WorkerContainerRegistry.class);
			context.getBean(GatedWorker.class).gate.countDown();
			registry.stop();
			assertThat(queue(context, "orders").isShuttingDown()).isTrue();
			assertThatIllegalStateException().isThrownBy(registry::start)
				.withMessage("Workers cannot be restarted: their queues are shut down");
		});
	}

	private static RateLimitingQueue<String> queue(AssertableApplicationContext context, String name) {
		return context.getBean(WorkQueueRegistry.class).get(name);
	}

	/**
	 * Holds every item until the gate opens; serves two queues.
	 */
	static class GatedWorker {

		final CountDownLatch gate = new CountDownLatch(1);

		final List<String> started = new CopyOnWriteArrayList<>();

		final List<String> finished = new CopyOnWriteArrayList<>();

		final List<String> interrupted = new CopyOnWriteArrayList<>();

		@QueueWorker(queue = "orders")
		void orders(String item) throws InterruptedException {
			process(item);
		}

		@QueueWorker(queue = "emails")
		void emails(String item) throws InterruptedException {
			process(item);
		}

		private void process(String item) throws InterruptedException {
			this.started.add(item);
			try {
				this.gate.await();
			}
			catch (InterruptedException ex) {
				this.interrupted.add(item);
				throw ex;
			}
			this.finished.add(item);
		}

	}

	/**
	 * Stands in for the web server: in its shutdown phase, a request still in flight adds
	 * an item.
	 */
	static class InFlightRequests implements SmartLifecycle {

		private final int phase;

		private final WorkQueueRegistry queues;

		private volatile boolean running;

		volatile boolean added;

		InFlightRequests(int phase, WorkQueueRegistry queues) {
			this.phase = phase;
			this.queues = queues;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			RateLimitingQueue<String> orders = this.queues.get("orders");
			this.added = !orders.isShuttingDown();
			orders.add("added-by-request");
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

}
