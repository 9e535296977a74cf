package dev.workqueue.spring.observation;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.jspecify.annotations.Nullable;

import dev.workqueue.spi.TraceContextSource;

/**
 * The {@link TraceContextSource} of an application with Micrometer Tracing: the context
 * of the tracer's current span, injected with the application's {@link Propagator} (so in
 * its propagation format: W3C {@code traceparent} by default with Brave or
 * OpenTelemetry), as a {@link TraceCarrier} text. Nothing is allocated when no span is
 * current. Thread-safe.
 */
public final class PropagatorTraceContextSource implements TraceContextSource {

	private final Tracer tracer;

	private final Propagator propagator;

	/**
	 * Creates the source.
	 * @param tracer the application's tracer
	 * @param propagator the application's propagator
	 */
	public PropagatorTraceContextSource(Tracer tracer, Propagator propagator) {
		this.tracer = Objects.requireNonNull(tracer, "tracer");
		this.propagator = Objects.requireNonNull(propagator, "propagator");
	}

	@Override
	public @Nullable String currentContext() {
		Span span = this.tracer.currentSpan();
		if (span == null) {
			return null;
		}
		Map<String, String> fields = new LinkedHashMap<>(4);
		this.propagator.inject(span.context(), fields, Map::put);
		return TraceCarrier.encode(fields);
	}

	@Override
	public String toString() {
		return "PropagatorTraceContextSource[" + this.propagator.getClass().getSimpleName() + "]";
	}

}
