package dev.workqueue.spi;

/**
 * Where a queue gets the trace context to store with an item it is given: the context of
 * the span current on the thread that adds, in the tracer's own propagation format (W3C
 * {@code traceparent} by default with Brave or OpenTelemetry), or nothing. Set on a
 * queue's builder (the Spring starter sets one when the application has a tracer); a
 * queue without one stores nothing and costs nothing more.
 * <p>
 * A queue calls {@link #currentContext()} once per {@code add}, {@code addAfter},
 * {@code addRateLimited} or {@code addAll} (one context for all its items), on the adding
 * thread, never under its lock. It stores a context beside the item until the item is
 * next handed out, by the contract's rules: the context of the item's first effective add
 * since it was last handed out is the parent of its next processing, and those of the
 * later adds until then are links, at most {@link ItemTrace#MAX_LINKS}. A worker reads
 * them with {@link Poller#trace()}. Only {@linkplain ItemTrace#storable storable}
 * contexts are stored: the queues drop the others.
 * <p>
 * Implementations must be thread-safe and fast, and should not throw: the queues built by
 * this project wrap a source with {@link #guard}, which logs the first failure and stores
 * nothing for the call that failed.
 */
@FunctionalInterface
public interface TraceContextSource {

	/**
	 * Returns the context of the span current on the calling thread.
	 * @return the context, or {@code null} when no span is current (nothing is then
	 * stored or allocated)
	 */
	String currentContext();

	/**
	 * Returns {@code source} wrapped so that it never throws and returns only storable
	 * contexts: a failure is logged once with the queue's name, a context that is not
	 * {@linkplain ItemTrace#storable storable} is dropped (logged once too).
	 * @param source the source, or {@code null} for none
	 * @param queueName the queue's name, for the log
	 * @return the guarded source, or {@code null} if {@code source} is
	 */
	static TraceContextSource guard(TraceContextSource source, String queueName) {
		return (source == null || source instanceof GuardedTraceContextSource) ? source
				: new GuardedTraceContextSource(source, queueName);
	}

}
