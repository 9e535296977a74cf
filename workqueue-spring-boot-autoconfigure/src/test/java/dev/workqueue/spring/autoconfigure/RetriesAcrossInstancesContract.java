package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.QueueWorker;
import dev.workqueue.spring.WorkItemGivenUpEvent;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.worker.WorkerContainerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code max-retries} of a queue of a shared backend counts the failures of every
 * instance together, in the store: two application contexts on one store play two
 * instances of one application. A subclass per backend gives the store: the
 * auto-configurations and properties of a queue {@code orders} on it, and how a third
 * instance reads the failures counted there.
 */
abstract class RetriesAcrossInstancesContract {

	/**
	 * How long a step may take: the retries wait for real time (a second each, on the
	 * system clock, which the queues of these instances use), so a deadline is the only
	 * way; generous, for a loaded machine (10 s timed out under a load of 11). Each wait
	 * ends as soon as its condition holds.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final AtomicInteger attemptsOfA = new AtomicInteger();

	private final AtomicInteger attemptsOfB = new AtomicInteger();

	private final List<WorkItemGivenUpEvent> givenUpInA = new CopyOnWriteArrayList<>();

	private final List<WorkItemGivenUpEvent> givenUpInB = new CopyOnWriteArrayList<>();

	/**
	 * Each retry waits a second, far longer than a poll (100 ms): a paused worker is
	 * parked before the item is ready again.
	 */
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withPropertyValues(
			"workqueue.queues.orders.max-retries=2", "workqueue.queues.orders.poll-timeout=100ms",
			"workqueue.queues.orders.shutdown-timeout=10s",
			"workqueue.queues.orders.rate-limiter.exponential.base-delay=1s",
			"workqueue.queues.orders.rate-limiter.exponential.max-delay=1s");

	/**
	 * Puts the queue {@code orders} on the store: the auto-configurations (with
	 * {@link WorkQueueAutoConfiguration}), the connection, the backend and where in the
	 * store it keeps its items, the same for every instance of one test.
	 * @param runner the runner with the queue's other settings
	 * @return the runner of an instance
	 */
	protected abstract ApplicationContextRunner onStore(ApplicationContextRunner runner);

	/**
	 * Returns the failures of {@code item} counted in the store, as a third instance
	 * reads them.
	 * @param item the item
	 * @return its count
	 */
	protected abstract int failures(String item);

	@Test
	void anItemIsAttemptedMaxRetriesPlusOneTimesAcrossInstancesAndGivenUpOnce() {
		instance(this.attemptsOfA, this.givenUpInA).run((a) -> instance(this.attemptsOfB, this.givenUpInB).run((b) -> {
			setPaused(true, a, b);
			awaitEveryWorkerPaused();
			orders(a).add("a");
			// A fails it, then B, then A: the third failure overall gives up.
			attemptOnce(a, this.attemptsOfA);
			attemptOnce(b, this.attemptsOfB);
			setPaused(false, a);
			await().atMost(TIMEOUT).until(() -> this.givenUpInA.size() == 1);
			await().during(Duration.ofMillis(1500))
				.atMost(TIMEOUT)
				.until(() -> this.attemptsOfA.get() == 2 && this.attemptsOfB.get() == 1);
			assertThat(this.givenUpInB).isEmpty();
			assertThat(this.givenUpInA).singleElement()
				.satisfies((event) -> assertThat(event.getAttempts()).isEqualTo(3));
			assertThat(failures("a")).as("forgotten on give-up").isZero();
		}));
	}

	@Test
	void aRestartDoesNotResetTheCount() {
		instance(this.attemptsOfA, this.givenUpInA).run((a) -> {
			orders(a).add("a");
			await().atMost(TIMEOUT).until(() -> this.attemptsOfA.get() == 1);
			a.close();
		});
		assertThat(failures("a")).isOne();
		instance(this.attemptsOfB, this.givenUpInB).run((b) -> {
			await().atMost(TIMEOUT).until(() -> this.givenUpInB.size() == 1);
			await().during(Duration.ofMillis(1500)).atMost(TIMEOUT).until(() -> this.attemptsOfB.get() == 2);
		});
		assertThat(this.givenUpInA).isEmpty();
	}

	@Test
	void anAttemptFailingWhileItsInstanceShutsDownHandsTheItemBackCounted() throws Exception {
		BlockingWorker blocking = new BlockingWorker();
		onStore(this.contextRunner).withBean(BlockingWorker.class, () -> blocking).run((a) -> {
			RateLimitingQueue<String> orders = orders(a);
			orders.add("a");
			assertThat(blocking.entered.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
			await().atMost(TIMEOUT).until(orders::isShuttingDown);
			blocking.release.countDown();
			closing.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		});
		assertThat(failures("a")).as("the failure is counted").isOne();
		instance(this.attemptsOfB, this.givenUpInB)
			.run((b) -> await().atMost(TIMEOUT).until(() -> this.attemptsOfB.get() == 1));
	}

	/** An instance whose worker counts its attempts and whose listener its give-ups. */
	private ApplicationContextRunner instance(AtomicInteger attempts, List<WorkItemGivenUpEvent> givenUp) {
		return onStore(this.contextRunner).withBean(FailingWorker.class, () -> new FailingWorker(attempts))
			.withBean(GivenUp.class, () -> new GivenUp(givenUp));
	}

	private void attemptOnce(AssertableApplicationContext instance, AtomicInteger attempts) {
		int before = attempts.get();
		setPaused(false, instance);
		await().atMost(TIMEOUT).until(() -> attempts.get() == before + 1);
		setPaused(true, instance);
		awaitEveryWorkerPaused();
	}

	private static void setPaused(boolean paused, AssertableApplicationContext... instances) {
		for (AssertableApplicationContext instance : instances) {
			instance.getBean(WorkerContainerRegistry.class).setPaused("orders", paused);
		}
	}

	/**
	 * Waits until the worker threads of both instances are parked in their paused wait.
	 */
	private static void awaitEveryWorkerPaused() {
		await().atMost(TIMEOUT)
			.until(() -> Thread.getAllStackTraces()
				.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().getName().matches("workqueue-orders-\\d+"))
				.allMatch((entry) -> Arrays.stream(entry.getValue())
					.anyMatch((frame) -> frame.getMethodName().equals("awaitTurn"))));
	}

	private static RateLimitingQueue<String> orders(AssertableApplicationContext instance) {
		return instance.getBean(WorkQueueRegistry.class).get("orders");
	}

	static class FailingWorker {

		private final AtomicInteger attempts;

		FailingWorker(AtomicInteger attempts) {
			this.attempts = attempts;
		}

		@QueueWorker(queue = "orders")
		void process(String item) {
			this.attempts.incrementAndGet();
			throw new IllegalStateException("attempt of " + item + " fails");
		}

	}

	/** Fails its item once the test, having begun to close the context, lets it. */
	static class BlockingWorker {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@QueueWorker(queue = "orders")
		void process(String item) throws InterruptedException {
			this.entered.countDown();
			this.release.await();
			throw new IllegalStateException("attempt of " + item + " fails during shutdown");
		}

	}

	static class GivenUp implements ApplicationListener<WorkItemGivenUpEvent> {

		private final List<WorkItemGivenUpEvent> events;

		GivenUp(List<WorkItemGivenUpEvent> events) {
			this.events = events;
		}

		@Override
		public void onApplicationEvent(WorkItemGivenUpEvent event) {
			this.events.add(event);
		}

	}

}
