package dev.workqueue.spring.worker;

import java.lang.reflect.InvocationTargetException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;
import org.springframework.util.ClassUtils;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spring.WorkResult;

/**
 * Handles one item taken from the queue for one {@link WorkerEndpoint}: invokes the
 * worker method in an observation, applies the outcome with {@link WorkOutcomes}, and
 * marks the item done when its {@link WorkerContainer} says (always, once per item).
 * Stateless between items; called by the worker threads of one container.
 * <p>
 * Nothing the worker method, the limiter, a listener or the observation throws escapes,
 * except a {@link VirtualMachineError} other than a {@link StackOverflowError}: the
 * thread that called lives on.
 */
final class WorkerInvoker {

	private static final Log logger = LogFactory.getLog(WorkerInvoker.class);

	private final WorkerEndpoint endpoint;

	private final String queueName;

	private final RateLimitingQueue<Object> queue;

	private final WorkOutcomes outcomes;

	private final WorkObservations observations;

	private final Class<?> itemType;

	WorkerInvoker(WorkerEndpoint endpoint, String queueName, RateLimitingQueue<Object> queue, WorkOutcomes outcomes,
			WorkObservations observations) {
		this.endpoint = endpoint;
		this.queueName = queueName;
		this.queue = queue;
		this.outcomes = outcomes;
		this.observations = observations;
		this.itemType = ClassUtils.resolvePrimitiveIfNecessary(endpoint.method().getParameterTypes()[0]);
	}

	/**
	 * Processes {@code item}: invokes the worker method and applies the outcome. The
	 * caller then marks it {@linkplain #done done}, alone or with its next poll.
	 * @param item an item the queue handed out
	 * @param priority the priority it was handed out with; 0 from a queue without
	 * priorities
	 * @param trace the trace contexts it was handed out with, {@code null} for none
	 */
	void process(Object item, int priority, @Nullable ItemTrace trace) {
		WorkObservations.Work work = beginObservation(item, trace);
		WorkOutcome outcome = WorkOutcome.FAILED;
		Throwable error = null;
		try {
			if (!this.itemType.isInstance(item)) {
				error = new IllegalArgumentException(
						"Item of " + item.getClass().getName() + " does not fit the parameter of worker "
								+ this.endpoint.id() + ", a " + this.itemType.getName());
				outcome = this.outcomes.rejected(item, error);
				return;
			}
			WorkResult result;
			try {
				result = invoke(item, priority);
			}
			catch (Throwable ex) {
				rethrowIfFatal(ex);
				error = ex;
				outcome = this.outcomes.failed(item, priority, ex);
				return;
			}
			outcome = this.outcomes.finished(item, priority, result);
		}
		catch (Throwable ex) {
			// The limiter, a listener or the logging failed: keep the thread alive.
			rethrowIfFatal(ex);
			error = (error != null) ? error : ex;
			logger.error(LogMessage.format("Failed to handle the outcome of %s for an item of %s of queue '%s'",
					this.endpoint.id(), item.getClass().getName(), this.queueName), ex);
		}
		finally {
			endObservation(work, outcome, error);
		}
	}

	/**
	 * Marks {@code item} done. An item whose {@code equals} or {@code hashCode} throws
	 * here stays "processing" in the queue (see {@link dev.workqueue.WorkQueue}'s rule on
	 * keys); the thread logs it and goes on.
	 */
	void done(Object item) {
		try {
			this.queue.done(item);
		}
		catch (RuntimeException | LinkageError | StackOverflowError ex) {
			doneFailed(item, ex);
		}
	}

	/**
	 * Reports that marking {@code item} done failed, alone or with the next poll.
	 * @param item the item
	 * @param failure what the queue threw
	 */
	void doneFailed(Object item, Throwable failure) {
		logger.error(LogMessage.format("Queue '%s' could not mark an item of %s done; it stays in process",
				this.queueName, item.getClass().getName()), failure);
	}

	/** An observation that fails to start costs only the observation. */
	private WorkObservations.Work beginObservation(Object item, @Nullable ItemTrace trace) {
		try {
			return this.observations.begin(this.endpoint, item, trace);
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("Could not observe an item of queue '%s'", this.queueName), ex);
			return WorkObservations.Work.NONE;
		}
	}

	private void endObservation(WorkObservations.Work work, WorkOutcome outcome, @Nullable Throwable error) {
		try {
			work.end(outcome, error);
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("Could not end the observation of an item of queue '%s'", this.queueName),
					ex);
		}
	}

	private @Nullable WorkResult invoke(Object item, int priority) throws Throwable {
		Object[] arguments = this.endpoint.takesPriority() ? new Object[] { item, priority } : new Object[] { item };
		try {
			return (WorkResult) this.endpoint.method().invoke(this.endpoint.bean(), arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * A thread of the JVM's own trouble (out of memory, an internal error) is not kept
	 * alive. A stack overflow is the worker method's: its stack has unwound by the time
	 * it is caught here, so it fails that item (retried, then given up) as an exception
	 * does; ending the thread would lose the item and leave the pool a thread short.
	 */
	private static void rethrowIfFatal(Throwable ex) {
		if (ex instanceof VirtualMachineError error && !(error instanceof StackOverflowError)) {
			throw error;
		}
	}

}
