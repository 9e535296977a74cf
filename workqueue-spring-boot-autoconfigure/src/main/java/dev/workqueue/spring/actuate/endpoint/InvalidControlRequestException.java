package dev.workqueue.spring.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * A runtime-control request that cannot be applied, with the field at fault when there is
 * one; the web extension answers it with a 400 whose body carries both.
 */
final class InvalidControlRequestException extends InvalidEndpointRequestException {

	private final @Nullable String field;

	/**
	 * Creates an exception.
	 * @param field the request field at fault, {@code null} for the request as a whole
	 * @param message what is wrong, also the reason
	 */
	InvalidControlRequestException(@Nullable String field, String message) {
		super(message, message);
		this.field = field;
	}

	@Nullable String getField() {
		return this.field;
	}

}
