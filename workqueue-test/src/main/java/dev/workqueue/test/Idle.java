package dev.workqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * Waits, in a test, until work queues are idle: nothing ready, nothing being processed,
 * nothing waiting for a delay. A test adds items (or calls the code that does), then
 * awaits idle before it checks what the workers did:
 *
 * <pre class="code">
 * &#64;Autowired WorkQueueRegistry queues;
 *
 * &#64;Test
 * void shipsTheOrder() {
 *     orders.add("order-1");
 *     Idle.await(queues, Duration.ofSeconds(5));
 *     assertThat(shipments.sent()).contains("order-1");
 * }
 * </pre>
 *
 * Time to wait is real time, whatever clock the queues run on: with a {@code FakeClock},
 * delayed items wait until the test steps it, and a wait that times out says so. On
 * timeout an {@link AssertionError} lists each queue still busy with its counts. For a
 * queue shared through Redis the counts are those of every instance.
 */
public final class Idle {

	/** How often the queues are read while waiting. */
	private static final long POLL_NANOS = 5_000_000L;

	private Idle() {
	}

	/**
	 * Waits until every queue of {@code registry} is idle.
	 * @param registry the application's queues
	 * @param timeout how long to wait at most, in real time
	 * @throws AssertionError naming the queues still busy when the timeout passes
	 * @throws IllegalArgumentException if {@code timeout} is negative
	 */
	public static void await(WorkQueueRegistry registry, Duration timeout) {
		Objects.requireNonNull(registry, "registry");
		List<WorkQueue<?>> queues = new ArrayList<>();
		registry.names().stream().sorted().forEach((name) -> queues.add(registry.get(name)));
		await(queues, timeout);
	}

	/**
	 * Waits until {@code queue} is idle.
	 * @param queue the queue
	 * @param timeout how long to wait at most, in real time
	 * @throws AssertionError with the queue's counts when the timeout passes
	 * @throws IllegalArgumentException if {@code timeout} is negative
	 */
	public static void await(WorkQueue<?> queue, Duration timeout) {
		await(List.of(Objects.requireNonNull(queue, "queue")), timeout);
	}

	/**
	 * Waits until every queue of {@code queues} is idle.
	 * @param queues the queues
	 * @param timeout how long to wait at most, in real time
	 * @throws AssertionError naming the queues still busy when the timeout passes
	 * @throws IllegalArgumentException if {@code timeout} is negative
	 */
	public static void await(Collection<? extends WorkQueue<?>> queues, Duration timeout) {
		Objects.requireNonNull(queues, "queues");
		Objects.requireNonNull(timeout, "timeout");
		if (timeout.isNegative()) {
			throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
		}
		Clock clock = Clock.system();
		long deadlineNanos = Nanos.add(clock.nanoTime(), Nanos.of(timeout));
		while (true) {
			List<String> busy = busy(queues);
			if (busy.isEmpty()) {
				return;
			}
			long nowNanos = clock.nanoTime();
			if (nowNanos >= deadlineNanos) {
				throw new AssertionError("Work queues not idle after " + timeout + ": " + String.join("; ", busy)
						+ ". Delayed items wait for their time: with a FakeClock, step it.");
			}
			try {
				clock.sleepUntil(Math.min(deadlineNanos, nowNanos + POLL_NANOS));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted while waiting for work queues to be idle", ex);
			}
		}
	}

	private static List<String> busy(Collection<? extends WorkQueue<?>> queues) {
		List<String> busy = new ArrayList<>();
		for (WorkQueue<?> queue : queues) {
			WorkQueueStats stats = queue.stats();
			if (stats.depth() > 0 || stats.processing() > 0 || stats.waiting() > 0) {
				busy.add("'" + queue.name() + "' has " + stats.depth() + " ready, " + stats.processing()
						+ " processing, " + stats.waiting() + " waiting");
			}
		}
		return busy;
	}

}
