package dev.workqueue.spring.worker;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.log.LogMessage;

import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkItemGivenUpEvent;
import dev.workqueue.spring.WorkResult;

/**
 * Applies the outcome of one worker invocation to one queue: forget, requeue with
 * backoff, requeue later, or give up once an item's failures exceed {@code max-retries}.
 * Shared by the containers of the queue; it knows nothing of them.
 * <p>
 * The outcome methods ({@link #finished}, {@link #failed}, {@link #rejected}) are called
 * by worker threads between {@code get} and {@code done} of the item, so no two threads
 * of this process handle the same item at once. Failures are counted in the queue's
 * {@link FailureCounts}: in this JVM for a memory queue, in the shared store of another
 * backend's queue (Redis, a database), where every instance counts together and a restart
 * does not reset the count. A count is forgotten on success, {@code requeueAfter} and
 * give-up.
 * <p>
 * An item given up on is kept by the queue's {@link QueueInspector} when it has one (for
 * an operator to see, send through again or delete), with its failed attempts and the
 * last failure as text, before {@link WorkItemGivenUpEvent} is published; a record that
 * cannot be written (its store out of reach) is logged, and the event still goes out.
 * <p>
 * On a {@link PriorityQueue}, a requeue (with backoff or later) keeps the priority the
 * item was handed out with; a hand-back at shutdown does not carry it.
 * <p>
 * A requeue that the queue would refuse because it is shutting down is handed back to a
 * {@linkplain SharedWorkQueue shared} queue, after the delay the requeue would have had,
 * so that another instance takes the item; a queue of this process only drops it and
 * counts it for the shutdown report.
 */
final class WorkOutcomes {

	private static final Log logger = LogFactory.getLog(WorkOutcomes.class);

	/**
	 * The longest reason kept with a given-up item: the failure's class and message, a
	 * message of a few lines at most, as a console shows it.
	 */
	static final int MAX_REASON_LENGTH = 1000;

	private final String queueName;

	private final RateLimitingQueue<Object> queue;

	private final Optional<SharedWorkQueue> shared;

	private final Optional<QueueInspector> inspector;

	/** The queue, if it has priorities; {@code null} otherwise. */
	private final @Nullable PriorityQueue<Object> priorityQueue;

	private final WorkerSettings settings;

	private final FailureCounts<Object> failures;

	private final @Nullable RateLimiter<Object> rateLimiter;

	private final ApplicationEventPublisher publisher;

	private final ItemLogging itemLogging;

	private final AtomicInteger refusedRequeues = new AtomicInteger();

	WorkOutcomes(String queueName, RateLimitingQueue<Object> queue, WorkerSettings settings, FailureTracking tracking,
			ApplicationEventPublisher publisher, ItemLogging itemLogging) {
		this.queueName = queueName;
		this.queue = queue;
		this.shared = queue.capability(SharedWorkQueue.class);
		this.inspector = queue.capability(QueueInspector.class);
		this.priorityQueue = (queue instanceof PriorityQueue<Object> priorities) ? priorities : null;
		this.settings = settings;
		this.failures = tracking.failures();
		this.rateLimiter = tracking.rateLimiter();
		this.publisher = publisher;
		this.itemLogging = itemLogging;
	}

	/**
	 * The worker method returned: forget, requeue or requeue later, as it asked.
	 * @param item the item
	 * @param priority the priority it was handed out with, which a requeue keeps
	 * @param result what the method returned; {@code null} for {@code void}
	 * @return what became of the item
	 */
	WorkOutcome finished(Object item, int priority, @Nullable WorkResult result) {
		if (result instanceof WorkResult.Requeue) {
			requeueOrPutBack(item, priority, Duration.ZERO, () -> requeueRateLimited(item, priority));
			return WorkOutcome.REQUEUE;
		}
		if (result instanceof WorkResult.RequeueAfter requeueAfter) {
			Duration delay = requeueAfter.delay();
			requeueOrPutBack(item, priority, delay, () -> {
				forget(item);
				if (!this.queue.isShuttingDown()) {
					addAfter(item, delay, priority);
					handBackIfShutDownMeanwhile(item, () -> delay);
				}
				else {
					handBackOrRefuse(item, delay);
				}
			});
			return WorkOutcome.REQUEUE_AFTER;
		}
		forgetOrSay(item);
		return WorkOutcome.DONE;
	}

	/**
	 * The worker method threw: retry with backoff, or give up once the item's failures
	 * exceed {@code max-retries}.
	 * @param item the item
	 * @param priority the priority it was handed out with, which a retry keeps
	 * @param exception what the method threw
	 * @return {@link WorkOutcome#FAILED} or {@link WorkOutcome#GAVE_UP}
	 */
	WorkOutcome failed(Object item, int priority, Throwable exception) {
		int attempts;
		try {
			attempts = this.failures.countFailure(item) + 1;
		}
		catch (RuntimeException ex) {
			// Not counted, so not judged against max-retries: tried again.
			putBack(item, priority, Duration.ZERO, ex);
			return WorkOutcome.FAILED;
		}
		if (!this.settings.retries(attempts)) {
			giveUp(item, attempts, exception);
			return WorkOutcome.GAVE_UP;
		}
		if (logger.isDebugEnabled()) {
			logger.debug(LogMessage.format("Retrying item %s of queue '%s' after %d failed attempt(s)",
					this.itemLogging.describe(item), this.queueName, attempts), exception);
		}
		requeueOrPutBack(item, priority, Duration.ZERO, () -> requeueRateLimited(item, priority));
		return WorkOutcome.FAILED;
	}

	/**
	 * The item cannot be passed to the worker method: give up on it at once.
	 * @param item the item
	 * @param reason why
	 * @return {@link WorkOutcome#GAVE_UP}
	 */
	WorkOutcome rejected(Object item, Throwable reason) {
		int attempts;
		try {
			attempts = this.failures.countFailure(item) + 1;
		}
		catch (RuntimeException ex) {
			// Given up whatever its count: said as a first attempt.
			attempts = 1;
		}
		giveUp(item, attempts, reason);
		return WorkOutcome.GAVE_UP;
	}

	/**
	 * Says, keeps and publishes the give-up, then forgets the item's history: a store out
	 * of reach for that forget changes none of the rest.
	 */
	private void giveUp(Object item, int attempts, Throwable exception) {
		logger.warn(LogMessage.format("Gave up on item %s of queue '%s' after %d failed attempt(s)",
				this.itemLogging.describe(item), this.queueName, attempts), exception);
		this.inspector.ifPresent((inspector) -> keepGivenUp(inspector, item, attempts, exception));
		try {
			this.publisher
				.publishEvent(new WorkItemGivenUpEvent(this.queue, this.queueName, item, attempts, exception));
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("A listener of WorkItemGivenUpEvent failed for queue '%s'", this.queueName),
					ex);
		}
		forgetOrSay(item);
	}

	/**
	 * Forgets the item's history where the outcome stands whatever becomes of it (a
	 * success, a give-up): a failure is said, and the item keeps its count, which its
	 * next run starts from.
	 */
	private void forgetOrSay(Object item) {
		try {
			forget(item);
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format("Could not forget the failures of item %s of queue '%s', which it keeps: %s",
					this.itemLogging.describe(item), this.queueName, ex.getMessage()));
		}
	}

	private void keepGivenUp(QueueInspector inspector, Object item, int attempts, Throwable exception) {
		try {
			inspector.keepGivenUp(item, attempts, reason(exception));
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format("Could not keep given-up item %s of queue '%s'",
					this.itemLogging.describe(item), this.queueName), ex);
		}
	}

	/** The failure as a console shows it: its class and message, cut short. */
	static String reason(Throwable exception) {
		String reason = exception.toString();
		return (reason.length() > MAX_REASON_LENGTH) ? reason.substring(0, MAX_REASON_LENGTH - 1) + "…" : reason;
	}

	private void forget(Object item) {
		this.failures.forget(item);
		this.queue.forget(item);
	}

	/**
	 * Runs a requeue; where the store or the limiter fails it (a store out of reach),
	 * puts the item back all the same, since the worker's {@code done} that follows would
	 * end it: the requeue asked for it to run again.
	 */
	private void requeueOrPutBack(Object item, int priority, Duration delay, Runnable requeue) {
		try {
			requeue.run();
		}
		catch (RuntimeException ex) {
			putBack(item, priority, delay, ex);
		}
	}

	/**
	 * Puts back an item whose requeue failed: handed back to a shared store, ready after
	 * {@code delay} (a store out of reach gets it once it answers: the handle remembers
	 * the lease, and its {@code done} then ends nothing); added again to a queue in
	 * memory, at once, where it is queued again at its {@code done}.
	 */
	private void putBack(Object item, int priority, Duration delay, RuntimeException cause) {
		logger.warn(LogMessage.format("Could not requeue item %s of queue '%s' as its worker asked; it is put back",
				this.itemLogging.describe(item), this.queueName), cause);
		if (this.shared.isPresent()) {
			this.shared.get().handBack(item, delay);
		}
		else if (this.priorityQueue != null) {
			this.priorityQueue.add(item, priority);
		}
		else {
			this.queue.add(item);
		}
	}

	private void requeueRateLimited(Object item, int priority) {
		if (!this.queue.isShuttingDown()) {
			if (this.priorityQueue != null) {
				this.priorityQueue.addRateLimited(item, priority);
			}
			else {
				this.queue.addRateLimited(item);
			}
			handBackIfShutDownMeanwhile(item, () -> rateLimitedDelay(item));
			return;
		}
		handBackOrRefuse(item, rateLimitedDelay(item));
	}

	/**
	 * As {@code addRateLimited} would: the limiter counts the requeue and sets the delay.
	 */
	private Duration rateLimitedDelay(Object item) {
		boolean limited = this.shared.isPresent() && this.rateLimiter != null;
		return limited ? this.rateLimiter.when(item) : Duration.ZERO;
	}

	/**
	 * Closes the gap between reading the shutdown flag and the requeue: a shared queue
	 * that shut down in between ignored the requeue, and the worker's {@code done} would
	 * then end the hold and lose the item. The flag never goes back and the queue read it
	 * while adding, so a queue still running now took the requeue. Otherwise the item is
	 * handed back, which the queue's rules make harmless when the requeue was written
	 * after all (the item is queued once, at the earlier time); the limiter may then have
	 * counted this requeue twice, which only lengthens the item's next backoff.
	 */
	private void handBackIfShutDownMeanwhile(Object item, Supplier<Duration> delay) {
		if (this.shared.isPresent() && this.queue.isShuttingDown()) {
			handBackOrRefuse(item, delay.get());
		}
	}

	private void addAfter(Object item, Duration delay, int priority) {
		if (this.priorityQueue != null) {
			this.priorityQueue.addAfter(item, delay, priority);
		}
		else {
			this.queue.addAfter(item, delay);
		}
	}

	/**
	 * Hands {@code item}, which the shutting-down queue would ignore, back to the shared
	 * queue; or, for a queue of this process only, counts it as refused for the shutdown
	 * report. A requeue racing with the shutdown itself is ignored by the queue without
	 * being counted here.
	 */
	private void handBackOrRefuse(Object item, Duration delay) {
		if (this.shared.isPresent() && this.shared.get().handBack(item, delay)) {
			logger.debug(LogMessage.format("Handed an item of %s back to shared queue '%s' at shutdown",
					item.getClass().getName(), this.queueName));
			return;
		}
		this.refusedRequeues.incrementAndGet();
		logger.debug(LogMessage.format("Not requeueing an item of %s: queue '%s' is shutting down",
				item.getClass().getName(), this.queueName));
	}

	/** Requeues refused because the queue was shutting down. */
	int refusedRequeues() {
		return this.refusedRequeues.get();
	}

	/**
	 * Forgets the failures counted for {@code item}, so that its next failure is its
	 * first again.
	 * @param item the item
	 */
	void forgetFailures(Object item) {
		this.failures.forget(item);
	}

	/**
	 * Returns how many failures of {@code item} are counted; for tests.
	 * @param item the item
	 * @return the count
	 */
	int failures(Object item) {
		return this.failures.failures(item);
	}

}
