package dev.workqueue.spring.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spring.worker.WorkOutcome;

/**
 * The {@link Observation.Context} of one worker invocation: the queue, the worker method,
 * the item and the trace contexts stored with it, and, once the invocation is over, its
 * {@link WorkOutcome}. The default convention never puts the item into key values (it may
 * hold personal data); a convention of the application's may read it.
 */
public class WorkItemObservationContext extends Observation.Context {

	private final String queueName;

	private final String worker;

	private final Object item;

	private final @Nullable ItemTrace trace;

	private @Nullable WorkOutcome outcome;

	/**
	 * Creates the context of one invocation.
	 * @param queueName the queue the item came from
	 * @param worker the worker method, as {@code beanName#methodName}
	 * @param item the item
	 */
	public WorkItemObservationContext(String queueName, String worker, Object item) {
		this(queueName, worker, item, null);
	}

	/**
	 * Creates the context of one invocation of an item handed out with trace contexts.
	 * @param queueName the queue the item came from
	 * @param worker the worker method, as {@code beanName#methodName}
	 * @param item the item
	 * @param trace the trace contexts stored with the item, {@code null} for none
	 */
	public WorkItemObservationContext(String queueName, String worker, Object item, @Nullable ItemTrace trace) {
		this.queueName = Objects.requireNonNull(queueName, "queueName");
		this.worker = Objects.requireNonNull(worker, "worker");
		this.item = Objects.requireNonNull(item, "item");
		this.trace = trace;
	}

	/**
	 * Returns the name of the queue the item came from.
	 * @return the queue's name
	 */
	public String getQueueName() {
		return this.queueName;
	}

	/**
	 * Returns the worker method.
	 * @return the method, as {@code beanName#methodName}
	 */
	public String getWorker() {
		return this.worker;
	}

	/**
	 * Returns the item being processed.
	 * @return the item
	 */
	public Object getItem() {
		return this.item;
	}

	/**
	 * Returns the trace contexts stored with the item at its adds, which
	 * {@link WorkItemTracingObservationHandler} makes the span's parent and links.
	 * @return the contexts, {@code null} when the item has none
	 */
	public @Nullable ItemTrace getTrace() {
		return this.trace;
	}

	/**
	 * Returns what became of the item.
	 * @return the outcome, {@code null} while the invocation runs
	 */
	public @Nullable WorkOutcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Sets what became of the item; called before the observation stops.
	 * @param outcome the outcome
	 */
	public void setOutcome(WorkOutcome outcome) {
		this.outcome = Objects.requireNonNull(outcome, "outcome");
	}

}
