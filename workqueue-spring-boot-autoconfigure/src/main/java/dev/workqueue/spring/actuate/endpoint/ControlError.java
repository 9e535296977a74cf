package dev.workqueue.spring.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The JSON body of a refused runtime-control request: what is wrong, and with which field
 * when one is at fault.
 *
 * @param status the HTTP status, 400
 * @param error the status's reason phrase
 * @param field the request field at fault, {@code null} (left out of the JSON) for the
 * request as a whole
 * @param message what is wrong and what is expected
 */
public record ControlError(int status, String error, @Nullable String field, String message) {

	/**
	 * Returns the 400 answer to a refused request.
	 * @param field the request field at fault, {@code null} for the request as a whole
	 * @param message what is wrong and what is expected
	 * @return the response
	 */
	static WebEndpointResponse<ControlError> badRequest(@Nullable String field, String message) {
		return new WebEndpointResponse<>(
				new ControlError(WebEndpointResponse.STATUS_BAD_REQUEST, "Bad Request", field, message),
				WebEndpointResponse.STATUS_BAD_REQUEST);
	}

}
