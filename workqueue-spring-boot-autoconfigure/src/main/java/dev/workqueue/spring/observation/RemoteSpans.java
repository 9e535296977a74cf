package dev.workqueue.spring.observation;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import org.jspecify.annotations.Nullable;

/**
 * Reads the span context of a remote span from the single-field propagation formats (W3C
 * Trace Context's {@code traceparent}, B3's single {@code b3} header) without starting a
 * span: what {@link WorkItemTracingObservationHandler} needs for a link.
 */
final class RemoteSpans {

	private RemoteSpans() {
	}

	/**
	 * Reads a {@code traceparent} value: {@code version-traceid-spanid-flags}, 2, 32, 16
	 * and 2 lower-case hex digits, neither id all zeros.
	 * @param tracer builds the context
	 * @param traceparent the value
	 * @return the context, or {@code null} if the value is not one
	 */
	static @Nullable TraceContext w3c(Tracer tracer, String traceparent) {
		String[] parts = traceparent.trim().split("-", -1);
		if (parts.length < 4 || !hex(parts[0], 2) || !hex(parts[1], 32) || !hex(parts[2], 16) || !hex(parts[3], 2)
				|| zeros(parts[1]) || zeros(parts[2])) {
			return null;
		}
		boolean sampled = (Integer.parseInt(parts[3], 16) & 1) == 1;
		return tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(sampled).build();
	}

	/**
	 * Reads a {@code b3} value: {@code traceid-spanid[-sampling[-parentspanid]]}, the
	 * trace id of 16 or 32 hex digits, the span id of 16; a value of the sampling state
	 * alone names no span.
	 * @param tracer builds the context
	 * @param b3 the value
	 * @return the context, or {@code null} if the value names no span
	 */
	static @Nullable TraceContext b3(Tracer tracer, String b3) {
		String[] parts = b3.trim().split("-", -1);
		if (parts.length < 2 || !(hex(parts[0], 16) || hex(parts[0], 32)) || !hex(parts[1], 16) || zeros(parts[0])
				|| zeros(parts[1])) {
			return null;
		}
		Boolean sampled = (parts.length > 2) ? !"0".equals(parts[2]) : null;
		return tracer.traceContextBuilder().traceId(parts[0]).spanId(parts[1]).sampled(sampled).build();
	}

	private static boolean hex(String value, int length) {
		if (value.length() != length) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			char c = value.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return false;
			}
		}
		return true;
	}

	private static boolean zeros(String value) {
		for (int i = 0; i < value.length(); i++) {
			if (value.charAt(i) != '0') {
				return false;
			}
		}
		return true;
	}

}
