package dev.workqueue.spring.actuate.health;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.spring.worker.WorkerContainerStatus;

/**
 * {@link HealthIndicator} for the work queues: {@code UP} while every worker container
 * runs with all its threads alive, no queue is shut down and every queue shared through a
 * store outside this JVM (Redis, a database) reaches it; {@code DOWN} otherwise, with a
 * detail naming each queue at fault. Once the application is shutting down, stopped
 * containers and shut-down queues are expected and do not make it {@code DOWN}. Paused
 * workers were paused on purpose: they do not make it {@code DOWN} either.
 * <p>
 * Details map each queue's name to its state: {@code "running"}, {@code "paused"}, or
 * what is wrong; a store's warning that does not stop the queue (a database's cleanup
 * held back by another session) follows the state, and leaves the indicator {@code UP}.
 * Thread-safe: each call reads the queues and containers afresh.
 */
public final class WorkQueuesHealthIndicator implements HealthIndicator {

	private final WorkQueueRegistry queues;

	private final @Nullable WorkerContainerRegistry workers;

	private final BooleanSupplier shuttingDown;

	/**
	 * Creates an indicator for the queues of {@code queues} and the containers of
	 * {@code workers}.
	 * @param queues the queues to check
	 * @param workers the worker containers to check, {@code null} when there are none
	 * @param shuttingDown whether the application is shutting down
	 */
	public WorkQueuesHealthIndicator(WorkQueueRegistry queues, @Nullable WorkerContainerRegistry workers,
			BooleanSupplier shuttingDown) {
		this.queues = Objects.requireNonNull(queues, "queues");
		this.workers = workers;
		this.shuttingDown = Objects.requireNonNull(shuttingDown, "shuttingDown");
	}

	@Override
	public Health health() {
		boolean expectStopped = this.shuttingDown.getAsBoolean();
		Map<String, String> states = new TreeMap<>();
		boolean down = false;
		for (String name : this.queues.names()) {
			WorkQueue<?> queue = this.queues.get(name);
			boolean stopped = queue.isShuttingDown();
			down |= stopped && !expectStopped;
			String unreachable = stopped ? null : unreachable(queue);
			down |= unreachable != null;
			states.put(name, stopped ? "shut down" : (unreachable != null) ? unreachable : running(queue));
		}
		if (this.workers != null) {
			for (WorkerContainerStatus container : this.workers.containers()) {
				String problem = problem(container);
				if (problem != null) {
					down |= !expectStopped;
					states.merge(container.queue(), problem, WorkQueuesHealthIndicator::join);
				}
				else if (container.paused()) {
					states.computeIfPresent(container.queue(), (queue, state) -> state.startsWith("running")
							? "paused" + state.substring("running".length()) : state);
				}
			}
		}
		return (down ? Health.down() : Health.up()).withDetails(states).build();
	}

	/**
	 * Checks that a queue whose state lives elsewhere (Redis, a database) answers: one
	 * read of its shared size, then whether its own last attempt to reach the shared
	 * state failed (its workers' or its renewals', which a read between two outages would
	 * miss).
	 */
	private static @Nullable String unreachable(WorkQueue<?> queue) {
		Optional<SharedWorkQueue> shared = queue.capability(SharedWorkQueue.class);
		if (shared.isEmpty()) {
			return null;
		}
		try {
			queue.size();
		}
		catch (RuntimeException ex) {
			return "unreachable: " + ex.getMessage();
		}
		return shared.get().failure();
	}

	/**
	 * A running queue's state: {@code "running"}, with what its store warns of (another
	 * session holding back a database's cleanup, say), which does not make it down.
	 */
	private static String running(WorkQueue<?> queue) {
		String warning = queue.capability(SharedWorkQueue.class).map(SharedWorkQueue::warning).orElse(null);
		return (warning != null) ? "running, " + warning : "running";
	}

	private static @Nullable String problem(WorkerContainerStatus container) {
		if (container.running()) {
			return null;
		}
		return "worker " + container.worker() + " not running, " + container.aliveThreads() + " of "
				+ container.concurrency() + " threads alive";
	}

	private static String join(String state, String problem) {
		return "running".equals(state) ? problem : state + ", " + problem;
	}

}
