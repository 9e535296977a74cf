package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.autoconfigure.WorkQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for pausing, resuming and resizing the workers of a queue at runtime.
 */
class WorkerControlTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
		.withPropertyValues("workqueue.queues.orders.concurrency=2", "workqueue.queues.orders.shutdown-timeout=5s")
		.withBean(GatedWorker.class);

	@Test
	void pauseLetsTheItemsInHandFinishAndTakesNoMoreUntilResumed() {
		this.contextRunner.run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			RateLimitingQueue<String> orders = orders(context.getBean(WorkQueueRegistry.class));
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			orders.add("a");
			orders.add("b");
			await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 2);
			workers.setPaused("orders", true);
			orders.add("c");
			assertThat(orders.size()).as("adding is not blocked").isOne();
			worker.gate.release(2);
			awaitEveryThreadPaused();
			assertThat(worker.calls).containsExactlyInAnyOrder("a", "b");
			assertThat(worker.inFlight).hasValue(0);
			assertThat(orders.size()).isOne();
			assertThat(workers.isPaused("orders")).isTrue();
			assertThat(workers.containers()).singleElement()
				.satisfies((status) -> assertThat(status.paused()).isTrue())
				.satisfies((status) -> assertThat(status.running()).as("paused is not broken").isTrue());
			workers.setPaused("orders", false);
			worker.gate.release(1);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 3);
			assertThat(workers.isPaused("orders")).isFalse();
		});
	}

	@Test
	void pauseWakesTheThreadsWaitingInGet() {
		this.contextRunner.run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			RateLimitingQueue<String> orders = orders(context.getBean(WorkQueueRegistry.class));
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			await().atMost(TIMEOUT).until(() -> workerThreads().size() == 2);
			workers.setPaused("orders", true);
			awaitEveryThreadPaused();
			orders.add("a");
			assertThat(worker.inFlight).hasValue(0);
			assertThat(orders.size()).isOne();
			worker.gate.release(1);
			workers.setPaused("orders", false);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 1);
		});
	}

	@Test
	void aPauseEndsTheWaitingPollsAtOnceHoweverLongThePollTimeout() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.poll-timeout=1h").run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			RateLimitingQueue<String> orders = orders(context.getBean(WorkQueueRegistry.class));
			// Issue 28: core's queues give wakeable pollers once its engine part lands;
			// until then Pollers.of falls back to a poller that ends only the next poll.
			assertThat(orders.capability(PollerFactory.class)).as("the queues the starter builds have PollerFactory")
				.isPresent();
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			await().atMost(TIMEOUT).until(() -> workerThreads().size() == 2);
			workers.setPaused("orders", true);
			// No wait for the threads to park: the pause must hold for an add right
			// after.
			orders.add("a");
			await().during(Duration.ofMillis(300)).atMost(TIMEOUT).until(() -> orders.size() == 1);
			assertThat(worker.calls).isEmpty();
			awaitEveryThreadPaused();
			worker.gate.release(1);
			workers.setPaused("orders", false);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 1);
		});
	}

	@Test
	void aPauseOrAShrinkWakesThePollerOfEveryThreadSoThatItsPollEndsAtOnce() {
		SeamQueues.Record record = new SeamQueues.Record();
		RateLimitingQueue<Object> real = WorkQueues.builder()
			.name("orders")
			.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
		this.contextRunner
			.withPropertyValues("workqueue.queues.orders.poll-timeout=1h", "workqueue.queues.orders.concurrency=3")
			.withBean("orders", RateLimitingQueue.class,
					() -> SeamQueues.capable(real, record, SeamQueues.IdlePoller::new, false))
			.run((context) -> {
				WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
				await().atMost(TIMEOUT).until(() -> workerThreads().size() == 3 && record.pollers.size() == 3);
				// Each thread waits in a poll of an hour, which only a wake-up ends.
				workers.setConcurrency("orders", 1);
				await().atMost(TIMEOUT).until(() -> workerThreads().size() == 1);
				assertThat(workers.containers()).singleElement()
					.satisfies((status) -> assertThat(status.aliveThreads()).isOne());
				workers.setPaused("orders", true);
				awaitEveryThreadPaused();
				assertThat(record.pollers).allSatisfy((poller) -> assertThat(poller.wakeups).hasPositiveValue());
				assertThat(record.calls("poll")).isZero();
				assertThat(record.calls("get")).isZero();
			});
	}

	@Test
	void resizeStartsMissingThreadsAndEndsSurplusOnesAfterTheirItem() {
		this.contextRunner.run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			RateLimitingQueue<String> orders = orders(context.getBean(WorkQueueRegistry.class));
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			for (int i = 0; i < 8; i++) {
				orders.add("item-" + i);
			}
			await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 2);
			workers.setConcurrency("orders", 4);
			await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 4);
			assertThat(workers.containers()).singleElement()
				.satisfies((status) -> assertThat(status.concurrency()).isEqualTo(4))
				.satisfies((status) -> assertThat(status.aliveThreads()).isEqualTo(4));
			workers.setConcurrency("orders", 1);
			worker.gate.release(4);
			await().atMost(TIMEOUT).until(() -> workers.containers().get(0).aliveThreads() == 1);
			await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 1);
			worker.maxInFlight.set(0);
			worker.gate.release(100);
			await().atMost(TIMEOUT).until(() -> worker.calls.size() == 8);
			assertThat(worker.maxInFlight).as("one thread from now on").hasValue(1);
			assertThat(workers.containers()).singleElement()
				.satisfies((status) -> assertThat(status.running()).as("retired threads are not a fault").isTrue());
		});
	}

	@Test
	void aPausedQueueStaysPausedWhenTheApplicationStops() {
		this.contextRunner.run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			RateLimitingQueue<String> orders = orders(context.getBean(WorkQueueRegistry.class));
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			workers.setPaused("orders", true);
			awaitEveryThreadPaused();
			orders.add("a");
			worker.gate.release(1);
			context.close();
			assertThat(workers.containers()).singleElement()
				.satisfies((status) -> assertThat(status.aliveThreads()).isZero());
			assertThat(worker.calls).isEmpty();
		});
	}

	@Test
	void aWakeUpLeftPendingByAPauseDoesNotEndAThreadBeforeTheQueueIsDrained() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.concurrency=1").run((context) -> {
			GatedWorker worker = context.getBean(GatedWorker.class);
			RateLimitingQueue<String> orders = orders(context.getBean(WorkQueueRegistry.class));
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			orders.add("a");
			await().atMost(TIMEOUT).until(() -> worker.inFlight.get() == 1);
			// The thread is busy: the pause's wake-up stays pending on its poller and
			// ends its next poll, which comes after the shutdown below.
			workers.setPaused("orders", true);
			workers.setPaused("orders", false);
			orders.add("b");
			CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
			await().atMost(TIMEOUT).until(orders::isShuttingDown);
			worker.openGate();
			closing.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(worker.calls).containsExactly("a", "b");
		});
	}

	@Test
	void aQueuePausedBeforeItsWorkersStartStartsThemPaused() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class))
			.withPropertyValues("workqueue.queues.orders.concurrency=1")
			.withBean("lazyWorker", GatedWorker.class, GatedWorker::new, (definition) -> definition.setLazyInit(true))
			.run((context) -> {
				WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
				assertThat(workers.containers()).isEmpty();
				workers.setPaused("orders", true);
				assertThat(workers.isPaused("orders")).isTrue();
				assertThatIllegalArgumentException().isThrownBy(() -> workers.setConcurrency("orders", 2))
					.withMessage("No worker serves queue 'orders'");
				GatedWorker worker = context.getBean("lazyWorker", GatedWorker.class);
				orders(context.getBean(WorkQueueRegistry.class)).add("a");
				worker.openGate();
				awaitEveryThreadPaused();
				assertThat(worker.calls).isEmpty();
				assertThat(workers.containers()).singleElement()
					.satisfies((status) -> assertThat(status.paused()).isTrue());
				workers.setPaused("orders", false);
				await().atMost(TIMEOUT).until(() -> worker.calls.contains("a"));
			});
	}

	@Test
	void controlNamesWhatItRefuses() {
		this.contextRunner.run((context) -> {
			WorkerContainerRegistry workers = context.getBean(WorkerContainerRegistry.class);
			assertThatIllegalArgumentException().isThrownBy(() -> workers.setPaused("invoices", true))
				.withMessage("No work queue named 'invoices'");
			assertThatIllegalArgumentException().isThrownBy(() -> workers.setConcurrency("orders", 0))
				.withMessage("concurrency must be at least 1 for queue 'orders' (one thread per worker method), was 0");
			assertThatIllegalArgumentException().isThrownBy(() -> workers.setConcurrency("orders", 100_000))
				.withMessage("concurrency must be at most 1024 for queue 'orders', was 100000");
			assertThat(workers.isPaused("invoices")).isFalse();
			context.close();
			assertThatIllegalArgumentException().isThrownBy(() -> workers.setPaused("orders", true))
				.withMessage("The workers of queue 'orders' are stopped");
		});
	}

	@Test
	@SuppressWarnings("unchecked")
	void idleWorkersPollWithTheQueuesPollTimeoutAndNeverBlockInGet() {
		List<String> takes = new CopyOnWriteArrayList<>();
		RateLimitingQueue<Object> real = WorkQueues.builder()
			.name("orders")
			.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
		RateLimitingQueue<Object> recording = (RateLimitingQueue<Object>) Proxy.newProxyInstance(
				getClass().getClassLoader(), new Class<?>[] { RateLimitingQueue.class }, (proxy, method, args) -> {
					if (method.getName().equals("get") || method.getName().equals("poll")) {
						takes.add(method.getName() + ((args != null) ? Arrays.toString(args) : "[]"));
					}
					try {
						// A default method (capability) runs on the proxy, so the workers
						// poll the
						// queue through the proxy's public methods, which this test
						// records.
						return method.isDefault() ? InvocationHandler.invokeDefault(proxy, method, args)
								: method.invoke(real, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
		this.contextRunner.withPropertyValues("workqueue.queues.orders.poll-timeout=250ms")
			.withBean("orders", RateLimitingQueue.class, () -> recording)
			.run((context) -> {
				// Two threads, each polling again once its poll timed out.
				await().atMost(TIMEOUT).until(() -> takes.size() >= 4);
				assertThat(takes).containsOnly("poll[PT0.25S]");
			});
	}

	@SuppressWarnings("unchecked")
	private static RateLimitingQueue<String> orders(WorkQueueRegistry registry) {
		return (RateLimitingQueue<String>) (RateLimitingQueue<?>) registry.get("orders");
	}

	private static List<Thread> workerThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().matches("workqueue-orders-\\d+") && thread.isAlive())
			.toList();
	}

	/** Waits until every worker thread is parked in its paused wait. */
	private static void awaitEveryThreadPaused() {
		await().atMost(TIMEOUT)
			.until(() -> !workerThreads().isEmpty() && workerThreads().stream()
				.allMatch((thread) -> Arrays.stream(thread.getStackTrace())
					.anyMatch((frame) -> frame.getMethodName().equals("awaitTurn"))
						&& thread.getState() == Thread.State.WAITING));
	}

}
