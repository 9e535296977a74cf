package dev.workqueue.redis;

/**
 * The record kept in a queue's dead-letter list: a small JSON object with the payload and
 * why it could not be decoded.
 */
final class DeadLetter {

	private DeadLetter() {
	}

	static String record(String payload, Throwable reason, String server) {
		return "{\"payload\":" + quote(payload) + ",\"reason\":" + quote(String.valueOf(reason)) + ",\"server\":"
				+ quote(server) + "}";
	}

	private static String quote(String text) {
		StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\\') {
				quoted.append('\\').append(c);
			}
			else if (c < 0x20) {
				quoted.append(String.format("\\u%04x", (int) c));
			}
			else {
				quoted.append(c);
			}
		}
		return quoted.append('"').toString();
	}

}
