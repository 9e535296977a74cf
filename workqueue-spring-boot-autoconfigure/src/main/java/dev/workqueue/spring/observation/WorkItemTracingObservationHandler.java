package dev.workqueue.spring.observation;

import java.util.Map;
import java.util.Objects;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.workqueue.spi.ItemTrace;

/**
 * Starts the span of a {@code workqueue.process} observation from the trace contexts its
 * item was stored with: a child of the span current at the item's first effective add,
 * with a link to each later add's span (the contract's §2 "Observation"). Registered
 * before Micrometer Tracing's own handlers, it takes only
 * {@link WorkItemObservationContext}s and behaves as
 * {@link DefaultTracingObservationHandler} for everything but the start.
 * <p>
 * The parent is extracted with the application's {@link Propagator}. A link needs the
 * linked span's {@link TraceContext}: read directly from W3C {@code traceparent} and B3
 * {@code b3} fields, and for any other format from a span extracted from the context and
 * abandoned at once (never reported), the one generic way, with every bridge, to turn a
 * propagated context into a {@code TraceContext}. A context that cannot be read is
 * ignored with one log line (the item is processed all the same, its span then without
 * that parent or link).
 */
public class WorkItemTracingObservationHandler extends DefaultTracingObservationHandler {

	private static final Log logger = LogFactory.getLog(WorkItemTracingObservationHandler.class);

	private final Tracer tracer;

	private final Propagator propagator;

	/**
	 * Creates the handler.
	 * @param tracer the application's tracer
	 * @param propagator the propagator that wrote the stored contexts
	 */
	public WorkItemTracingObservationHandler(Tracer tracer, Propagator propagator) {
		super(tracer);
		this.tracer = Objects.requireNonNull(tracer, "tracer");
		this.propagator = Objects.requireNonNull(propagator, "propagator");
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof WorkItemObservationContext;
	}

	@Override
	public void onStart(Observation.Context context) {
		ItemTrace trace = ((WorkItemObservationContext) context).getTrace();
		if (trace == null) {
			super.onStart(context);
			return;
		}
		String queueName = ((WorkItemObservationContext) context).getQueueName();
		Span.Builder builder = parent(trace.parent(), queueName);
		for (String link : trace.links()) {
			TraceContext linked = remoteContext(link, queueName);
			if (linked != null) {
				builder.addLink(new Link(linked));
			}
		}
		Span span = builder.kind(Span.Kind.CONSUMER).start();
		getTracingContext(context).setSpan(span);
	}

	/** A builder whose parent is the stored parent, or a root without one. */
	private Span.Builder parent(@Nullable String parent, String queueName) {
		Map<String, String> fields = (parent != null) ? fields(parent, queueName) : null;
		if (fields == null) {
			return this.tracer.spanBuilder().setNoParent();
		}
		if (remoteContext(fields) == null) {
			unreadable(parent, queueName, "no span context in it");
			return this.tracer.spanBuilder().setNoParent();
		}
		// Extracted by the propagator itself, so that the parent keeps what else the
		// context carries (trace state, baggage).
		return this.propagator.extract(fields, Map::get);
	}

	/** The span context a stored context names, or {@code null} if it names none. */
	private @Nullable TraceContext remoteContext(String stored, String queueName) {
		Map<String, String> fields = fields(stored, queueName);
		if (fields == null) {
			return null;
		}
		TraceContext context = remoteContext(fields);
		if (context == null) {
			unreadable(stored, queueName, "no span context in it");
		}
		return context;
	}

	/**
	 * The span context that the fields of a context name: read directly from the two
	 * single-field formats (W3C {@code traceparent}, Boot's default, and B3's
	 * {@code b3}), else through a span extracted by the propagator and abandoned at once,
	 * which works with any format at the cost of a span.
	 */
	private @Nullable TraceContext remoteContext(Map<String, String> fields) {
		String traceparent = fields.get("traceparent");
		if (traceparent != null) {
			return RemoteSpans.w3c(this.tracer, traceparent);
		}
		String b3 = fields.get("b3");
		if (b3 != null) {
			return RemoteSpans.b3(this.tracer, b3);
		}
		Span probe = this.propagator.extract(fields, Map::get).start();
		try {
			TraceContext child = probe.context();
			String remoteSpanId = child.parentId();
			if (remoteSpanId == null) {
				return null;
			}
			return this.tracer.traceContextBuilder()
				.traceId(child.traceId())
				.spanId(remoteSpanId)
				.sampled(child.sampled())
				.build();
		}
		finally {
			probe.abandon();
		}
	}

	private @Nullable Map<String, String> fields(String stored, String queueName) {
		try {
			return TraceCarrier.decode(stored);
		}
		catch (IllegalArgumentException ex) {
			unreadable(stored, queueName, ex.getMessage());
			return null;
		}
	}

	private static void unreadable(String stored, String queueName, @Nullable String why) {
		logger.warn("Ignoring a trace context of " + stored.length() + " characters stored with an item of queue '"
				+ queueName + "' that cannot be read (" + why + "); the item is processed without it");
	}

}
