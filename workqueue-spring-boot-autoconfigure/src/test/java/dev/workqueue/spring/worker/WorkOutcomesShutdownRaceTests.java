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
 * A shutdown that comes between a worker's check of the flag and its requeue of a shared
 * queue's item: the queue ignores the requeue, so the item must be handed back rather
 * than ended by the worker's {@code done}. The shutdown is made to fall exactly there.
 */
class WorkOutcomesShutdownRaceTests {

	private final RateLimiter<Object> limiter = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5),
			Duration.ofSeconds(1));

	private final RateLimitingQueue<Object> real = WorkQueues.builder().buildRateLimitingQueue(this.limiter);

	private final List<String> handedBack = new CopyOnWriteArrayList<>();

	@Test
	void aFailedItemWhoseRequeueRacesTheShutdownIsHandedBack() {
		WorkOutcomes outcomes = outcomes(shutDownBefore(Set.of("addRateLimited", "addAfter")));
		takeOut("a");

		assertThat(outcomes.failed("a", 0, new IllegalStateException("boom"))).isEqualTo(WorkOutcome.FAILED);

		assertThat(this.real.isShuttingDown()).isTrue();
		assertThat(this.handedBack).containsExactly("a after PT0.005S");
		assertThat(outcomes.refusedRequeues()).isZero();
	}

	@Test
	void aRequeueAfterThatRacesTheShutdownIsHandedBackWithItsDelay() {
		WorkOutcomes outcomes = outcomes(shutDownBefore(Set.of("addAfter")));
		takeOut("a");

		outcomes.finished("a", 0, WorkResult.requeueAfter(Duration.ofSeconds(7)));

		assertThat(this.handedBack).containsExactly("a after PT7S");
	}

	@Test
	void aRequeueTheQueueTookIsNotHandedBack() {
		WorkOutcomes outcomes = outcomes(shutDownBefore(Set.of()));
		takeOut("a");

		outcomes.failed("a", 0, new IllegalStateException("boom"));

		assertThat(this.handedBack).isEmpty();
		assertThat(this.real.isShuttingDown()).isFalse();
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

	private WorkOutcomes outcomes(RateLimitingQueue<Object> queue) {
		return new WorkOutcomes("orders", queue,
				new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofSeconds(1)),
				new FailureTracking(FailureCounts.inMemory(), this.limiter), (event) -> {
				}, ItemLogging.TEXT);
	}

	/**
	 * Returns the real queue as a shared one that shuts down just before it is asked one
	 * of {@code methods}, after the worker has read the flag, and records its hand-backs.
	 */
	@SuppressWarnings("unchecked")
	private RateLimitingQueue<Object> shutDownBefore(Set<String> methods) {
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
					if (methods.contains(method.getName())) {
						this.real.shutDown();
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
