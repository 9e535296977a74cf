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

}
