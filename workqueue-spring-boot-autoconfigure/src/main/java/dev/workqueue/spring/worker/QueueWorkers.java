package dev.workqueue.spring.worker;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.log.LogMessage;
import org.springframework.core.task.TaskExecutor;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.spring.WorkItemGivenUpEvent;
import dev.workqueue.spring.WorkResult;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The workers of one queue: its {@link WorkerContainer}s, one per worker method, and what
 * they share: the queue, its settings, the executor that names their threads
 * {@code workqueue-<queue>-<n>}, and the count of each item's failures.
 * <p>
 * The outcome methods ({@link #finished}, {@link #failed}, {@link #rejected}) are called
 * by worker threads, between {@code get} and {@code done} of the item, so no two threads
 * handle the same item at once. {@code failures} holds an entry only for an item that
 * failed and was neither retried successfully nor given up on yet; the entry is removed
 * on success, {@code requeueAfter} and give-up, and every entry is dropped at shutdown,
 * so it cannot grow beyond the items in retry. {@link #beginShutdown} and
 * {@link #awaitShutdown} are called by the thread stopping the registry only, which alone
 * reads and writes {@code waitingAtShutdown} and {@code deadlineNanos}.
 */
final class QueueWorkers {

	private static final Log logger = LogFactory.getLog(QueueWorkers.class);

	private final String name;

	private final RateLimitingQueue<Object> queue;

	private final WorkerSettings settings;

	private final TaskExecutor executor;

	private final ApplicationEventPublisher publisher;

	private final Map<Object, Integer> failures = new ConcurrentHashMap<>();

	private final AtomicInteger refusedRequeues = new AtomicInteger();

	private final List<WorkerContainer> containers = new CopyOnWriteArrayList<>();

	private int waitingAtShutdown;

	private long deadlineNanos;

	QueueWorkers(String name, RateLimitingQueue<Object> queue, WorkerSettings settings, TaskExecutor executor,
			ApplicationEventPublisher publisher) {
		this.name = name;
		this.queue = queue;
		this.settings = settings;
		this.executor = executor;
		this.publisher = publisher;
	}

	String name() {
		return this.name;
	}

	RateLimitingQueue<Object> queue() {
		return this.queue;
	}

	TaskExecutor executor() {
		return this.executor;
	}

	/**
	 * Creates the container of {@code endpoint}, not yet started.
	 * @param endpoint the worker method
	 * @return the container
	 */
	WorkerContainer addContainer(WorkerEndpoint endpoint) {
		Integer concurrency = endpoint.concurrency();
		WorkerContainer container = new WorkerContainer(endpoint, this,
				(concurrency != null) ? concurrency : this.settings.concurrency());
		this.containers.add(container);
		return container;
	}

	/**
	 * The worker method returned: forget, requeue or requeue later, as it asked.
	 * @param item the item
	 * @param result what the method returned; {@code null} for {@code void}
	 */
	void finished(Object item, @Nullable WorkResult result) {
		if (result instanceof WorkResult.Requeue) {
			requeueRateLimited(item);
		}
		else if (result instanceof WorkResult.RequeueAfter requeueAfter) {
			forget(item);
			if (!refusedAtShutdown(item)) {
				this.queue.addAfter(item, requeueAfter.delay());
			}
		}
		else {
			forget(item);
		}
	}

	/**
	 * The worker method threw: retry with backoff, or give up once the item's failures
	 * exceed {@code max-retries}.
	 * @param item the item
	 * @param exception what the method threw
	 */
	void failed(Object item, Throwable exception) {
		int attempts = this.failures.merge(item, 1, Integer::sum);
		if (this.settings.retries(attempts)) {
			if (logger.isDebugEnabled()) {
				logger.debug(LogMessage.format("Retrying item %s of queue '%s' after %d failed attempt(s)", item,
						this.name, attempts), exception);
			}
			requeueRateLimited(item);
		}
		else {
			giveUp(item, attempts, exception);
		}
	}

	/**
	 * The item cannot be passed to the worker method: give up on it at once.
	 * @param item the item
	 * @param reason why
	 */
	void rejected(Object item, Throwable reason) {
		giveUp(item, this.failures.merge(item, 1, Integer::sum), reason);
	}

	private void giveUp(Object item, int attempts, Throwable exception) {
		forget(item);
		logger.warn(LogMessage.format("Gave up on item %s of queue '%s' after %d failed attempt(s)", item, this.name,
				attempts), exception);
		try {
			this.publisher.publishEvent(new WorkItemGivenUpEvent(this.queue, this.name, item, attempts, exception));
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("A listener of WorkItemGivenUpEvent failed for queue '%s'", this.name), ex);
		}
	}

	private void forget(Object item) {
		this.failures.remove(item);
		this.queue.forget(item);
	}

	private void requeueRateLimited(Object item) {
		if (!refusedAtShutdown(item)) {
			this.queue.addRateLimited(item);
		}
	}

	/**
	 * Counts a requeue that the queue would ignore because it is shutting down, so that
	 * the shutdown report includes it. A requeue racing with the shutdown itself is
	 * ignored by the queue without being counted here.
	 */
	private boolean refusedAtShutdown(Object item) {
		if (!this.queue.isShuttingDown()) {
			return false;
		}
		this.refusedRequeues.incrementAndGet();
		logger.debug(LogMessage.format("Not requeueing item %s: queue '%s' is shutting down", item, this.name));
		return true;
	}

	/**
	 * Returns how many items have a failure count; for tests.
	 * @return the number of tracked items
	 */
	int trackedFailures() {
		return this.failures.size();
	}

	/**
	 * Starts the shutdown: the containers stop expecting work, the queue is shut down
	 * (new adds are ignored, delayed items dropped) and the drain deadline is set. Worker
	 * threads keep taking what is queued and end once the queue is empty.
	 * @param nowNanos the clock's reading when the registry began stopping
	 */
	void beginShutdown(long nowNanos) {
		this.containers.forEach(WorkerContainer::stopping);
		this.waitingAtShutdown = this.queue.stats().waiting();
		this.queue.shutDown();
		this.deadlineNanos = Nanos.add(nowNanos, Nanos.of(this.settings.shutdownTimeout()));
	}

	/**
	 * Waits until every worker thread has ended or the deadline has passed, interrupts
	 * the threads still busy at the deadline, and logs at WARN what was left undone.
	 * @param clock the clock the deadline is measured on
	 */
	void awaitShutdown(Clock clock) {
		boolean drained = true;
		for (WorkerContainer container : this.containers) {
			drained &= container.awaitEnd(clock, this.deadlineNanos);
		}
		// Counted before abandoning, which lets interrupted workers finish (and fail)
		// their items: those are reported as in flight.
		WorkQueueStats stats = this.queue.stats();
		int dropped = this.waitingAtShutdown + this.refusedRequeues.get();
		if (!drained) {
			this.containers.forEach(WorkerContainer::abandon);
		}
		if (!drained || stats.depth() > 0 || stats.processing() > 0 || dropped > 0) {
			logger.warn(LogMessage.format(
					"Queue '%s' stopped with work left%s: %d queued, %d in flight, %d delayed or requeued and dropped",
					this.name,
					drained ? ""
							: " after its shutdown-timeout of " + this.settings.shutdownTimeout().toMillis() + "ms",
					stats.depth(), stats.processing(), dropped));
		}
		this.failures.clear();
	}

}
