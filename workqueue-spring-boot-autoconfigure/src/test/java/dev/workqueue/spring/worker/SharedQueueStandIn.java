package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue in memory dressed as a shared one, for {@link WorkOutcomes}' tests: it records
 * the hand-backs asked of it, and runs a hook before each other call, by the method's
 * name (to shut the queue down, or fail as a store out of reach, at that point).
 */
final class SharedQueueStandIn {

	final RateLimiter<Object> limiter = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5),
			Duration.ofSeconds(1));

	final RateLimitingQueue<Object> real = WorkQueues.builder().buildRateLimitingQueue(this.limiter);

	/** The events the outcomes published. */
	final List<Object> events = new CopyOnWriteArrayList<>();

	/** The hand-backs asked, as {@code "<item> after <delay>"}. */
	final List<String> handedBack = new CopyOnWriteArrayList<>();

	/** Adds {@code item} to the real queue and takes it out, as a worker would. */
	void takeOut(Object item) {
		this.real.add(item);
		try {
			assertThat(this.real.get()).isEqualTo(item);
		}
		catch (InterruptedException ex) {
			throw new AssertionError(ex);
		}
	}

	/**
	 * The outcomes of queue {@code orders} on {@code queue}, counting in {@code counts}.
	 */
	WorkOutcomes outcomes(RateLimitingQueue<Object> queue, FailureCounts<Object> counts) {
		return new WorkOutcomes("orders", queue,
				new WorkerSettings(1, 10, Duration.ofSeconds(30), Duration.ofSeconds(1)),
				new FailureTracking(counts, this.limiter), this.events::add, ItemLogging.TEXT);
	}

	/**
	 * Returns the real queue as a shared one that runs {@code before} with the name of
	 * each method called on it (but {@code handBack}, which it records).
	 */
	@SuppressWarnings("unchecked")
	RateLimitingQueue<Object> shared(Consumer<String> before) {
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
					before.accept(method.getName());
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
