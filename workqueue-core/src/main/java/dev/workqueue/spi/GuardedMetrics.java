package dev.workqueue.spi;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.workqueue.WorkQueueMetrics;

/**
 * Wraps a user's {@link WorkQueueMetrics} so that a hook that throws never reaches the
 * queue: the queue calls its hooks after its state has changed (an item handed out, a due
 * item moved), where an exception would strand the item with a caller that never sees it.
 * The first failure is logged with the queue's name.
 * <p>
 * For the backends (the in-memory and the Redis queues guard their hooks with it), so
 * that a hook is guarded the same way on every backend; applications have no need of it.
 */
public final class GuardedMetrics implements WorkQueueMetrics {

	private static final System.Logger logger = System.getLogger(GuardedMetrics.class.getName());

	private final WorkQueueMetrics metrics;

	private final String queueName;

	/** Whether durations go through; a hook that records none is not called with them. */
	private final boolean recordsDurations;

	private final AtomicBoolean logged = new AtomicBoolean();

	private GuardedMetrics(WorkQueueMetrics metrics, String queueName) {
		this.metrics = metrics;
		this.queueName = queueName;
		this.recordsDurations = metrics.recordsDurations();
	}

	/**
	 * Returns {@code metrics} guarded, or {@link #NOOP} itself (which cannot throw).
	 * @param metrics the user's hook
	 * @param queueName the queue's name, for the log
	 * @return the guarded hook
	 */
	public static WorkQueueMetrics guard(WorkQueueMetrics metrics, String queueName) {
		return (metrics == NOOP) ? NOOP : new GuardedMetrics(metrics, queueName);
	}

	@Override
	public boolean recordsDurations() {
		return this.recordsDurations;
	}

	@Override
	public void added() {
		try {
			this.metrics.added();
		}
		catch (Throwable ex) {
			failed("added", ex);
		}
	}

	@Override
	public void handedOut(long queuedNanos) {
		if (!this.recordsDurations) {
			return;
		}
		try {
			this.metrics.handedOut(queuedNanos);
		}
		catch (Throwable ex) {
			failed("handedOut", ex);
		}
	}

	@Override
	public void done(long workNanos) {
		if (!this.recordsDurations) {
			return;
		}
		try {
			this.metrics.done(workNanos);
		}
		catch (Throwable ex) {
			failed("done", ex);
		}
	}

	@Override
	public void retried() {
		try {
			this.metrics.retried();
		}
		catch (Throwable ex) {
			failed("retried", ex);
		}
	}

	@Override
	public void stalled() {
		try {
			this.metrics.stalled();
		}
		catch (Throwable ex) {
			failed("stalled", ex);
		}
	}

	private void failed(String hook, Throwable ex) {
		if (this.logged.compareAndSet(false, true)) {
			logger.log(Level.WARNING, "Metrics hook " + hook + " of queue '" + this.queueName
					+ "' threw; the queue goes on and logs no further hook failures", ex);
		}
	}

	@Override
	public String toString() {
		return "GuardedMetrics[" + this.metrics + "]";
	}

}
