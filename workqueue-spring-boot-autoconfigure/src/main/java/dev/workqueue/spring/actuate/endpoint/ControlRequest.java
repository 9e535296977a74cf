package dev.workqueue.spring.actuate.endpoint;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The body of a runtime-control request, read strictly: {@code paused} is {@code true} or
 * {@code false}, {@code concurrency} a whole number; anything else is refused with a
 * message naming the field, where Spring's conversion would take {@code "yes"} for
 * {@code true} and fail on {@code 1.5} without saying why.
 *
 * @param paused {@code true} to pause, {@code false} to resume, {@code null} to leave as
 * is
 * @param concurrency the number of worker threads, {@code null} to leave as is
 */
record ControlRequest(@Nullable Boolean paused, @Nullable Integer concurrency) {

	static final String PAUSED = "paused";

	static final String CONCURRENCY = "concurrency";

	/** What a request gives, for the messages. */
	static final String EXPECTED = "\"" + PAUSED + "\" (true or false) and/or \"" + CONCURRENCY + "\" (1 to "
			+ WorkQueuesEndpoint.MAX_CONCURRENCY + ")";

	private static final Pattern WHOLE_NUMBER = Pattern.compile("-?[0-9]{1,10}");

	/**
	 * Reads the two fields as the endpoint received them: the JSON values as text.
	 * @param paused the text of {@code paused}, {@code null} when absent
	 * @param concurrency the text of {@code concurrency}, {@code null} when absent
	 * @return the request
	 * @throws InvalidControlRequestException naming the field that is not of its type
	 */
	static ControlRequest parse(@Nullable String paused, @Nullable String concurrency) {
		return new ControlRequest(parsePaused(paused), parseConcurrency(concurrency));
	}

	private static @Nullable Boolean parsePaused(@Nullable String paused) {
		if (paused == null) {
			return null;
		}
		return switch (paused) {
			case "true" -> Boolean.TRUE;
			case "false" -> Boolean.FALSE;
			default ->
				throw new InvalidControlRequestException(PAUSED, "paused must be true or false, was " + quoted(paused));
		};
	}

	private static @Nullable Integer parseConcurrency(@Nullable String concurrency) {
		if (concurrency == null) {
			return null;
		}
		if (WHOLE_NUMBER.matcher(concurrency).matches()) {
			long value = Long.parseLong(concurrency);
			if (value == (int) value) {
				return (int) value;
			}
		}
		throw new InvalidControlRequestException(CONCURRENCY, "concurrency must be a whole number from 1 to "
				+ WorkQueuesEndpoint.MAX_CONCURRENCY + ", was " + quoted(concurrency));
	}

	/** Text as the caller wrote it, cut short: the log and the answer repeat it. */
	private static String quoted(String text) {
		return "'" + cut(text) + "'";
	}

	/**
	 * Cuts a caller's text short for a message.
	 * @param text the text
	 * @return its first 40 characters, and "..." if there were more
	 */
	static String cut(String text) {
		int max = 40;
		return (text.length() > max) ? text.substring(0, max) + "..." : text;
	}

}
