package dev.workqueue.spring.worker;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.log.LogMessage;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkItemGivenUpEvent;
import dev.workqueue.spring.WorkResult;

/**
 * Applies the outcome of one worker invocation to one queue: forget, requeue with
 * backoff, requeue later, or give up once an item's failures exceed {@code max-retries}.
 * Shared by the containers of the queue; it knows nothing of them.
 * <p>
 * The outcome methods ({@link #finished}, {@link #failed}, {@link #rejected}) are called
 * by worker threads between {@code get} and {@code done} of the item, so no two threads
 * handle the same item at once. {@code failures} holds an entry only for an item that
 * failed and was neither retried successfully nor given up on yet; the entry is removed
 * on success, {@code requeueAfter} and give-up, and {@link #clear()} drops every entry at
 * shutdown, so it cannot grow beyond the items in retry.
 */
final class WorkOutcomes {

	private static final Log logger = LogFactory.getLog(WorkOutcomes.class);

	private final String queueName;

	private final RateLimitingQueue<Object> queue;

	private final WorkerSettings settings;

	private final ApplicationEventPublisher publisher;

	private final Map<Object, Integer> failures = new ConcurrentHashMap<>();

	private final AtomicInteger refusedRequeues = new AtomicInteger();

	WorkOutcomes(String queueName, RateLimitingQueue<Object> queue, WorkerSettings settings,
			ApplicationEventPublisher publisher) {
		this.queueName = queueName;
		this.queue = queue;
		this.settings = settings;
		this.publisher = publisher;
	}

	/**
	 * The worker method returned: forget, requeue or requeue later, as it asked.
	 * @param item the item
	 * @param result what the method returned; {@code null} for {@code void}
	 * @return what became of the item
	 */
	WorkOutcome finished(Object item, @Nullable WorkResult result) {
		if (result instanceof WorkResult.Requeue) {
			requeueRateLimited(item);
			return WorkOutcome.REQUEUE;
		}
		if (result instanceof WorkResult.RequeueAfter requeueAfter) {
			forget(item);
			if (!refusedAtShutdown(item)) {
				this.queue.addAfter(item, requeueAfter.delay());
			}
			return WorkOutcome.REQUEUE_AFTER;
		}
		forget(item);
		return WorkOutcome.DONE;
	}

	/**
	 * The worker method threw: retry with backoff, or give up once the item's failures
	 * exceed {@code max-retries}.
	 * @param item the item
	 * @param exception what the method threw
	 * @return {@link WorkOutcome#FAILED} or {@link WorkOutcome#GAVE_UP}
	 */
	WorkOutcome failed(Object item, Throwable exception) {
		int attempts = this.failures.merge(item, 1, Integer::sum);
		if (!this.settings.retries(attempts)) {
			giveUp(item, attempts, exception);
			return WorkOutcome.GAVE_UP;
		}
		if (logger.isDebugEnabled()) {
			logger.debug(LogMessage.format("Retrying item %s of queue '%s' after %d failed attempt(s)",
					Items.describe(item), this.queueName, attempts), exception);
		}
		requeueRateLimited(item);
		return WorkOutcome.FAILED;
	}

	/**
	 * The item cannot be passed to the worker method: give up on it at once.
	 * @param item the item
	 * @param reason why
	 * @return {@link WorkOutcome#GAVE_UP}
	 */
	WorkOutcome rejected(Object item, Throwable reason) {
		giveUp(item, this.failures.merge(item, 1, Integer::sum), reason);
		return WorkOutcome.GAVE_UP;
	}

	private void giveUp(Object item, int attempts, Throwable exception) {
		forget(item);
		logger.warn(LogMessage.format("Gave up on item %s of queue '%s' after %d failed attempt(s)",
				Items.describe(item), this.queueName, attempts), exception);
		try {
			this.publisher
				.publishEvent(new WorkItemGivenUpEvent(this.queue, this.queueName, item, attempts, exception));
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("A listener of WorkItemGivenUpEvent failed for queue '%s'", this.queueName),
					ex);
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
		logger.debug(LogMessage.format("Not requeueing an item of %s: queue '%s' is shutting down",
				item.getClass().getName(), this.queueName));
		return true;
	}

	/** Requeues refused because the queue was shutting down. */
	int refusedRequeues() {
		return this.refusedRequeues.get();
	}

	/** Drops every failure count: the queue is shut down. */
	void clear() {
		this.failures.clear();
	}

	/**
	 * Returns how many items have a failure count; for tests.
	 * @return the number of tracked items
	 */
	int trackedFailures() {
		return this.failures.size();
	}

}
