package dev.workqueue.spring.actuate.endpoint;

import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Refuses a runtime-control request of the {@code workqueues} endpoint that carries a
 * field the operation does not take, such as {@code {"pause":true}}, with a 400 naming
 * it: Boot passes a request's fields to an operation by name and drops the others, so a
 * misspelt field would otherwise go unnoticed (and, alone, read as an empty request).
 * <p>
 * Applies to the endpoint's write operations only; the fields are those of a JSON body
 * and the query string. Stateless and thread-safe.
 */
public final class WorkQueuesControlFieldsAdvisor implements OperationInvokerAdvisor {

	private static final EndpointId ENDPOINT_ID = EndpointId.of("workqueues");

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!ENDPOINT_ID.equals(endpointId) || operationType != OperationType.WRITE) {
			return invoker;
		}
		Set<String> known = parameters.stream().map(OperationParameter::getName).collect(Collectors.toSet());
		return (context) -> {
			Set<String> unknown = new TreeSet<>(context.getArguments().keySet());
			unknown.removeAll(known);
			if (unknown.isEmpty()) {
				return invoker.invoke(context);
			}
			String first = unknown.iterator().next();
			Object name = context.getArguments().get("name");
			return WorkQueuesEndpointWebExtension.refused(String.valueOf(name), first,
					"Unknown field '" + first + "': give " + ControlRequest.EXPECTED);
		};
	}

}
