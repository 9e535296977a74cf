package dev.workqueue.spi;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link TraceContextSource} that never throws and returns only storable contexts: what
 * {@link TraceContextSource#guard} returns. An add must never fail because its context
 * could not be read or is too large to keep; the item is then stored without one.
 */
final class GuardedTraceContextSource implements TraceContextSource {

	private static final System.Logger logger = System.getLogger(GuardedTraceContextSource.class.getName());

	private final TraceContextSource source;

	private final String queueName;

	private final AtomicBoolean failureLogged = new AtomicBoolean();

	private final AtomicBoolean dropLogged = new AtomicBoolean();

	GuardedTraceContextSource(TraceContextSource source, String queueName) {
		this.source = source;
		this.queueName = queueName;
	}

	@Override
	public String currentContext() {
		String context;
		try {
			context = this.source.currentContext();
		}
		catch (RuntimeException ex) {
			if (this.failureLogged.compareAndSet(false, true)) {
				logger.log(Level.WARNING, "Trace context source of queue '" + this.queueName
						+ "' threw; items are added without a context when it does, and no further failure is logged",
						ex);
			}
			return null;
		}
		if (context == null || ItemTrace.storable(context)) {
			return context;
		}
		if (this.dropLogged.compareAndSet(false, true)) {
			logger.log(Level.WARNING,
					"Queue '" + this.queueName + "' stores no trace context of " + context.length()
							+ " characters (empty, over " + ItemTrace.MAX_CONTEXT_LENGTH
							+ ", or with a line break); such adds carry no context, and no further one is logged");
		}
		return null;
	}

	@Override
	public String toString() {
		return "GuardedTraceContextSource[" + this.source + "]";
	}

}
