package dev.workqueue.console;

import org.springframework.http.HttpStatus;

/**
 * A request the console's JSON API refuses, with the status and the message it answers.
 */
final class ConsoleRequestException extends RuntimeException {

	private final HttpStatus status;

	ConsoleRequestException(HttpStatus status, String message) {
		super(message);
		this.status = status;
	}

	HttpStatus status() {
		return this.status;
	}

	static ConsoleRequestException badRequest(String message) {
		return new ConsoleRequestException(HttpStatus.BAD_REQUEST, message);
	}

	static ConsoleRequestException notFound(String message) {
		return new ConsoleRequestException(HttpStatus.NOT_FOUND, message);
	}

	/**
	 * A queue that failed to answer, most likely its store out of reach (503).
	 * @param what what could not be done, such as {@code cannot pause queue 'orders'}
	 * @param cause why
	 * @param showItems whether item text may be shown: if not, only the class of
	 * {@code cause} is told, since a store's message may quote an item
	 * @return the refusal
	 */
	static ConsoleRequestException unavailable(String what, RuntimeException cause, boolean showItems) {
		return new ConsoleRequestException(HttpStatus.SERVICE_UNAVAILABLE, what + ": " + reason(cause, showItems));
	}

	/**
	 * A value the queue refused as a bad argument, such as text its store cannot keep
	 * (400).
	 * @param what what was refused, such as {@code queue 'orders' refused add}
	 * @param cause the queue's refusal
	 * @param showItems whether item text may be shown, as for {@link #unavailable}
	 * @return the refusal
	 */
	static ConsoleRequestException refusedValue(String what, IllegalArgumentException cause, boolean showItems) {
		return badRequest(what + ": " + reason(cause, showItems));
	}

	private static String reason(RuntimeException cause, boolean showItems) {
		return (showItems && cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getName();
	}

}
