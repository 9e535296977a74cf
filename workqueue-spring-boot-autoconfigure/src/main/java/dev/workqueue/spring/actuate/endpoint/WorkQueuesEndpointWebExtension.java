package dev.workqueue.spring.actuate.endpoint;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

import dev.workqueue.spring.actuate.endpoint.WorkQueuesEndpoint.WorkQueueDescriptor;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} of the {@link WorkQueuesEndpoint}:
 * over HTTP, a write operation on an unknown queue answers 404 (a write operation that
 * returns nothing would answer 204).
 */
@EndpointWebExtension(endpoint = WorkQueuesEndpoint.class)
public final class WorkQueuesEndpointWebExtension {

	private final WorkQueuesEndpoint delegate;

	/**
	 * Creates the extension of {@code delegate}.
	 * @param delegate the endpoint
	 */
	public WorkQueuesEndpointWebExtension(WorkQueuesEndpoint delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
	}

	/**
	 * Applies {@link WorkQueuesEndpoint#control} and answers the queue afterwards, or
	 * 404.
	 * @param name the queue's name
	 * @param paused {@code true} to pause, {@code false} to resume, {@code null} to leave
	 * as is
	 * @param concurrency the queue's number of worker threads, {@code null} to leave as
	 * is
	 * @param securityContext who asks, for the log
	 * @return the queue, or a 404 response
	 */
	@WriteOperation
	public WebEndpointResponse<WorkQueueDescriptor> control(@Selector String name, @Nullable Boolean paused,
			@Nullable Integer concurrency, SecurityContext securityContext) {
		WorkQueueDescriptor queue = this.delegate.control(name, paused, concurrency, securityContext);
		return (queue != null) ? new WebEndpointResponse<>(queue)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
