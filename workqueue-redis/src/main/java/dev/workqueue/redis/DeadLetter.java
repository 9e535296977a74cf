package dev.workqueue.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * The record kept in a queue's dead-letter list: a small JSON object with the payload and
 * why it could not be decoded.
 */
final class DeadLetter {

	private DeadLetter() {
	}

	/**
	 * How much a queue's dead-letter list keeps: its newest {@code maxRecords}, for
	 * {@code timeToLive} after the last one came (the list expires then). Bounded so that
	 * a bad payload added again and again cannot fill Redis's memory, which, under a
	 * policy that refuses writes, would stop every add.
	 *
	 * @param maxRecords the most records kept, from 1
	 * @param timeToLive how long the list stays after its last record, from 1 second to
	 * 100 years
	 */
	record Bound(int maxRecords, Duration timeToLive) {

		/** What a builder keeps unless told: 100 records, for 7 days. */
		static final Bound DEFAULT = new Bound(100, Duration.ofDays(7));

		Bound {
			if (maxRecords < 1) {
				throw new IllegalArgumentException("maxRecords must be at least 1, was " + maxRecords);
			}
			Objects.requireNonNull(timeToLive, "timeToLive");
			if (timeToLive.compareTo(Duration.ofSeconds(1)) < 0 || timeToLive.compareTo(Duration.ofDays(36_525)) > 0) {
				throw new IllegalArgumentException("timeToLive must be from 1s to 100 years, was " + timeToLive);
			}
		}

		/** The script's last two arguments: the most records, the time to live in ms. */
		String[] args() {
			return new String[] { Integer.toString(this.maxRecords), Long.toString(this.timeToLive.toMillis()) };
		}

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
