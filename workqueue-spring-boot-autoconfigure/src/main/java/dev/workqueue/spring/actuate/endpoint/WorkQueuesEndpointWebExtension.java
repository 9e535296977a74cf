package dev.workqueue.spring.actuate.endpoint;

import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.core.log.LogMessage;

import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint.WorkQueueDescriptor;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} of the {@link WorkQueuesEndpoint}:
 * over HTTP, a write operation on an unknown queue answers 404 (a write operation that
 * returns nothing would answer 204), and a request that cannot be applied answers 400
 * with a {@link ControlError} body naming the field and the problem, also logged at
 * DEBUG. (Boot turns an {@link InvalidEndpointRequestException} into a bare 400 whose
 * reason its error page hides by default.)
 * <p>
 * The body's values are read strictly, from their text: Boot hands a JSON body's values
 * to the operation as text, and its conversion would take {@code "yes"} or {@code "on"}
 * for {@code true}. A value given as a JSON string ({@code {"concurrency":"3"}}) is
 * refused before, over Spring MVC, by {@link WorkQueuesEndpointBodyAdvice}. Fields the
 * operation does not know are refused by {@link WorkQueuesControlFieldsAdvisor}, before
 * this extension is called.
 */
@EndpointWebExtension(endpoint = WorkQueuesEndpoint.class)
public final class WorkQueuesEndpointWebExtension {

	private static final Log logger = LogFactory.getLog(WorkQueuesEndpointWebExtension.class);

	private final WorkQueuesEndpoint delegate;

	/**
	 * Creates the extension of {@code delegate}.
	 * @param delegate the endpoint
	 */
	public WorkQueuesEndpointWebExtension(WorkQueuesEndpoint delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
	}

	/**
	 * Applies {@link WorkQueuesEndpoint#control} and answers the queue afterwards, 404
	 * for an unknown queue, or 400 with a {@link ControlError}.
	 * @param name the queue's name
	 * @param paused {@code true} to pause, {@code false} to resume, {@code null} to leave
	 * as is
	 * @param concurrency the queue's number of worker threads, a whole number,
	 * {@code null} to leave as is
	 * @param securityContext who asks, for the log
	 * @return the queue, or a 404 or 400 response
	 */
	@WriteOperation
	public WebEndpointResponse<?> control(@Selector String name, @Nullable String paused, @Nullable String concurrency,
			SecurityContext securityContext) {
		try {
			ControlRequest request = ControlRequest.parse(paused, concurrency);
			WorkQueueDescriptor queue = this.delegate.control(name, request.paused(), request.concurrency(),
					securityContext);
			return (queue != null) ? new WebEndpointResponse<>(queue)
					: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (InvalidEndpointRequestException ex) {
			String field = (ex instanceof InvalidControlRequestException invalid) ? invalid.getField() : null;
			return refused(name, field, ex.getReason());
		}
	}

	static WebEndpointResponse<ControlError> refused(String name, @Nullable String field, String message) {
		logger.debug(LogMessage.format("Refused runtime control of queue '%s': %s", name, message));
		return ControlError.badRequest(field, message);
	}

}
