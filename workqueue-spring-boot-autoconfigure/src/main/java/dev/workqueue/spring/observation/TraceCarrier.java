package dev.workqueue.spring.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The text a queue stores for one trace context: the fields a Micrometer Tracing
 * {@code Propagator} injects (for example {@code traceparent}, {@code tracestate}, or the
 * B3 headers), as {@code name=value} pairs joined by {@code &}, each percent-encoded
 * where it holds {@code %}, {@code &}, {@code =} or a control character, so that the text
 * never holds a line break (which the stores use between contexts). Readable in
 * {@code redis-cli}:
 * {@code traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01}.
 */
final class TraceCarrier {

	private TraceCarrier() {
	}

	/**
	 * Encodes the fields of one context.
	 * @param fields the fields, in the propagator's order
	 * @return the text, or {@code null} when there are no fields
	 */
	static @Nullable String encode(Map<String, String> fields) {
		if (fields.isEmpty()) {
			return null;
		}
		StringBuilder text = new StringBuilder(64 * fields.size());
		for (Map.Entry<String, String> field : fields.entrySet()) {
			if (!text.isEmpty()) {
				text.append('&');
			}
			escape(field.getKey(), text);
			text.append('=');
			escape(field.getValue(), text);
		}
		return text.toString();
	}

	/**
	 * Decodes the fields of one context.
	 * @param text the text {@link #encode} made
	 * @return the fields
	 * @throws IllegalArgumentException if the text is not such a text
	 */
	static Map<String, String> decode(String text) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String pair : text.split("&", -1)) {
			int equals = pair.indexOf('=');
			if (equals <= 0) {
				throw new IllegalArgumentException("not a name=value pair: '" + pair + "'");
			}
			fields.put(unescape(pair.substring(0, equals)), unescape(pair.substring(equals + 1)));
		}
		return fields;
	}

	private static void escape(String value, StringBuilder text) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '%' || c == '&' || c == '=' || c < 0x20 || c == 0x7f) {
				text.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
			}
			else {
				text.append(c);
			}
		}
	}

	private static String unescape(String value) {
		if (value.indexOf('%') < 0) {
			return value;
		}
		StringBuilder text = new StringBuilder(value.length());
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c != '%') {
				text.append(c);
				continue;
			}
			if (i + 2 >= value.length()) {
				throw new IllegalArgumentException("truncated escape in '" + value + "'");
			}
			int high = Character.digit(value.charAt(i + 1), 16);
			int low = Character.digit(value.charAt(i + 2), 16);
			if (high < 0 || low < 0) {
				throw new IllegalArgumentException("bad escape in '" + value + "'");
			}
			text.append((char) ((high << 4) | low));
			i += 2;
		}
		return text.toString();
	}

}
