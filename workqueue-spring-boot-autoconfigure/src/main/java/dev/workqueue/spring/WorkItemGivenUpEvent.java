package dev.workqueue.spring;

import java.util.Objects;

import org.springframework.context.ApplicationEvent;

import dev.workqueue.RateLimitingQueue;

/**
 * Published when a {@link QueueWorker @QueueWorker} gives up on an item: its failures
 * reached the queue's {@code max-retries}, or it could not be passed to the worker method
 * at all. The item has been forgotten by the queue's rate limiter and will not be
 * processed again unless someone adds it again, for example a listener of this event that
 * parks it for later inspection.
 * <p>
 * Published synchronously on the worker thread that gave up, so listeners should be
 * quick. An exception thrown by a listener is logged and does not affect the worker.
 */
public final class WorkItemGivenUpEvent extends ApplicationEvent {

	private final String queueName;

	private final transient Object item;

	private final int attempts;

	private final Throwable lastException;

	/**
	 * Creates an event.
	 * @param queue the queue the item came from
	 * @param queueName the queue's name
	 * @param item the item given up on
	 * @param attempts failed attempts since the item's last success or give-up
	 * @param lastException why the last attempt failed
	 */
	public WorkItemGivenUpEvent(RateLimitingQueue<?> queue, String queueName, Object item, int attempts,
			Throwable lastException) {
		super(queue);
		this.queueName = Objects.requireNonNull(queueName, "queueName");
		this.item = Objects.requireNonNull(item, "item");
		this.attempts = attempts;
		this.lastException = Objects.requireNonNull(lastException, "lastException");
	}

	/**
	 * Returns the queue the item came from (the event's source).
	 * @return the queue
	 */
	public RateLimitingQueue<?> getQueue() {
		return (RateLimitingQueue<?>) getSource();
	}

	/**
	 * Returns the name of the queue the item came from.
	 * @return the queue's name
	 */
	public String getQueueName() {
		return this.queueName;
	}

	/**
	 * Returns the item given up on.
	 * @return the item
	 */
	public Object getItem() {
		return this.item;
	}

	/**
	 * Returns how many attempts failed since the item's last success or give-up:
	 * {@code max-retries + 1} when the retries ran out.
	 * @return the number of failed attempts
	 */
	public int getAttempts() {
		return this.attempts;
	}

	/**
	 * Returns why the last attempt failed.
	 * @return the exception thrown by the worker method, or describing why the item could
	 * not be passed to it
	 */
	public Throwable getLastException() {
		return this.lastException;
	}

	@Override
	public String toString() {
		return "WorkItemGivenUpEvent[queue=" + this.queueName + ", attempts=" + this.attempts + "]";
	}

}
