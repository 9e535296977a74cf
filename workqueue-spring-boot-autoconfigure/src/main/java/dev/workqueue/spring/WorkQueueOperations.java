package dev.workqueue.spring;

import java.util.Objects;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.worker.WorkerContainerRegistry;
import dev.workqueue.spring.worker.WorkerContainerStatus;
import dev.workqueue.spring.worker.WorkerSettings;

/**
 * What an operator does to one queue through this instance, for a console or an admin
 * tool that should not depend on how the starter runs its workers: forget an item's
 * history, set how many worker threads serve the queue here, pause or resume them, and
 * read those figures. The auto-configuration registers one; the queue itself (its items,
 * its given-up records, a pause of the whole queue in its store) is reached through
 * {@link dev.workqueue.inspect.QueueInspector}.
 * <p>
 * Concurrency and the workers' pause are this instance's, as the Actuator endpoint's
 * runtime control sets them; an item's failure count is where the queue keeps it (in the
 * store of a shared queue, for every instance). Every method takes the queue's name and
 * throws {@link IllegalArgumentException} naming it when there is no such queue.
 * Thread-safe; nothing is logged here, the caller says who asked.
 */
public class WorkQueueOperations {

	private final WorkQueueRegistry queues;

	private final WorkerContainerRegistry workers;

	/**
	 * Creates the operations on {@code queues} and the workers serving them.
	 * @param queues the queues
	 * @param workers the worker containers
	 */
	public WorkQueueOperations(WorkQueueRegistry queues, WorkerContainerRegistry workers) {
		this.queues = Objects.requireNonNull(queues, "queues");
		this.workers = Objects.requireNonNull(workers, "workers");
	}

	/**
	 * Forgets an item's history: its rate limiter's ({@link RateLimitingQueue#forget}),
	 * so that its next retry waits the shortest delay, and the failures the workers
	 * counted towards {@code max-retries}, so that its next failure counts as its first.
	 * What is queued is not changed.
	 * @param queueName the queue's name
	 * @param item the item, of the queue's type
	 * @throws IllegalArgumentException if there is no such queue
	 */
	public void forget(String queueName, Object item) {
		Objects.requireNonNull(item, "item");
		RateLimitingQueue<Object> queue = this.queues.get(queueName);
		queue.forget(item);
		this.workers.forgetFailures(queueName, item);
	}

	/**
	 * Sets how many threads serve the queue in this instance, spread over its worker
	 * methods: missing threads start at once, surplus ones end after their item.
	 * @param queueName the queue's name
	 * @param concurrency the number of threads, at least one per worker method, at most
	 * {@value WorkerSettings#MAX_CONCURRENCY}
	 * @throws IllegalArgumentException if there is no such queue, no worker serves it,
	 * its workers are stopped, or {@code concurrency} is out of range
	 */
	public void setConcurrency(String queueName, int concurrency) {
		this.workers.setConcurrency(queueName, concurrency);
	}

	/**
	 * Pauses or resumes the queue's workers in this instance: paused, they finish the
	 * items in hand and take no more. Adds are not affected.
	 * @param queueName the queue's name
	 * @param paused {@code true} to pause, {@code false} to resume
	 * @throws IllegalArgumentException if there is no such queue or its workers are
	 * stopped
	 */
	public void setPaused(String queueName, boolean paused) {
		this.workers.setPaused(queueName, paused);
	}

	/**
	 * Returns the figures of the queue's workers in this instance.
	 * @param queueName the queue's name
	 * @return the figures, taken when called
	 * @throws IllegalArgumentException if there is no such queue
	 */
	public Workers workers(String queueName) {
		Objects.requireNonNull(queueName, "queueName");
		if (!this.queues.names().contains(queueName)) {
			throw new IllegalArgumentException("No work queue named '" + queueName + "'");
		}
		int concurrency = this.workers.containers()
			.stream()
			.filter((container) -> container.queue().equals(queueName))
			.mapToInt(WorkerContainerStatus::concurrency)
			.sum();
		return new Workers(concurrency, this.workers.isPaused(queueName));
	}

	/**
	 * The workers of one queue in this instance.
	 *
	 * @param concurrency the threads serving the queue, summed over its worker methods
	 * (after a resize, the number they are moving to); 0 when no worker serves it
	 * @param paused whether they are paused
	 */
	public record Workers(int concurrency, boolean paused) {

	}

}
