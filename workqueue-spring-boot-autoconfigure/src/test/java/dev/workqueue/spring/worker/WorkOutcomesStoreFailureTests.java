package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.spring.WorkResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A requeue that the store or the limiter fails (a store out of reach): the item goes
 * back all the same, where the worker's {@code done} that follows would otherwise end it
 * and lose it. A shared queue gets it handed back; a queue in memory gets it added again.
 */
class WorkOutcomesStoreFailureTests {

	private final RateLimiter<Object> limiter = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5),
			Duration.ofSeconds(1));

	private final RateLimitingQueue<Object> real = WorkQueues.builder().buildRateLimitingQueue(this.limiter);

	private final List<String> handedBack = new CopyOnWriteArrayList<>();

	@Test
	void aFailedItemWhoseRequeueTheStoreFailsIsHandedBack() {
		WorkOutcomes outcomes = outcomes(shared(Set.of("addRateLimited")), FailureCounts.inMemory());
		takeOut("a");

		assertThat(outcomes.failed("a", 0, new IllegalStateException("boom"))).isEqualTo(WorkOutcome.FAILED);

		assertThat(this.handedBack).containsExactly("a after PT0S");
	}

	@Test
	void aFailedItemWhoseFailureCountTheStoreFailsIsHandedBack() {
		FailureCounts<Object> unreachable = new FailureCounts<>() {

			@Override
			public int countFailure(Object item) {
				throw new IllegalStateException("store out of reach");
			}

			@Override
			public int failures(Object item) {
				throw new IllegalStateException("store out of reach");
			}

			@Override
			public void forget(Object item) {
				throw new IllegalStateException("store out of reach");
			}

		};
		WorkOutcomes outcomes = outcomes(shared(Set.of()), unreachable);
		takeOut("a");

		assertThat(outcomes.failed("a", 0, new IllegalStateException("boom"))).isEqualTo(WorkOutcome.FAILED);

		assertThat(this.handedBack).containsExactly("a after PT0S");
	}

	@Test
	void aRequeueAfterTheStoreFailsIsHandedBackWithItsDelay() {
		WorkOutcomes outcomes = outcomes(shared(Set.of("addAfter")), FailureCounts.inMemory());
		takeOut("a");

		outcomes.finished("a", 0, WorkResult.requeueAfter(Duration.ofSeconds(7)));

		assertThat(this.handedBack).containsExactly("a after PT7S");
	}

	@Test
	void aRequeueTheLimiterFailsInMemoryIsAddedAgainAndRunsAfterItsDone() throws InterruptedException {
		RateLimiter<Object> failing = new RateLimiter<>() {

			@Override
			public Duration when(Object item) {
				throw new IllegalStateException("limiter failed");
			}

			@Override
			public void forget(Object item) {
			}

			@Override
			public int numRequeues(Object item) {
				return 0;
			}

		};
		RateLimitingQueue<Object> queue = WorkQueues.builder().buildRateLimitingQueue(failing);
		queue.add("a");
		assertThat(queue.get()).isEqualTo("a");
		WorkOutcomes outcomes = new WorkOutcomes("orders", queue,
				new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofSeconds(1)),
				new FailureTracking(FailureCounts.inMemory(), failing), (event) -> {
				}, ItemLogging.TEXT);

		outcomes.finished("a", 0, WorkResult.requeue());
		queue.done("a");

		assertThat(queue.size()).as("queued again").isOne();
	}

	private void takeOut(Object item) {
		this.real.add(item);
		try {
			assertThat(this.real.get()).isEqualTo(item);
		}
		catch (InterruptedException ex) {
			throw new AssertionError(ex);
		}
	}

	private WorkOutcomes outcomes(RateLimitingQueue<Object> queue, FailureCounts<Object> counts) {
		return new WorkOutcomes("orders", queue,
				new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofSeconds(1)),
				new FailureTracking(counts, this.limiter), (event) -> {
				}, ItemLogging.TEXT);
	}

	/**
	 * Returns the real queue as a shared one whose {@code failing} methods throw, as a
	 * store out of reach does, and which records its hand-backs.
	 */
	@SuppressWarnings("unchecked")
	private RateLimitingQueue<Object> shared(Set<String> failing) {
		InvocationHandler handler = (proxy, method, args) -> {
			switch (method.getName()) {
				case "capability":
					return InvocationHandler.invokeDefault(proxy, method, args);
				case "handBack":
					if (args != null) {
						this.handedBack.add(args[0] + " after " + args[1]);
						return true;
					}
					return 0;
				case "reportsSharedGauges":
					return true;
				default:
					if (failing.contains(method.getName())) {
						throw new IllegalStateException("store out of reach");
					}
					try {
						return method.invoke(this.real, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
			}
		};
		return (RateLimitingQueue<Object>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RateLimitingQueue.class, SharedWorkQueue.class }, handler);
	}

}
