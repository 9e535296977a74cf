package dev.workqueue.spring.actuate.endpoint;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.MethodParameter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.log.LogMessage;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Answers a runtime-control request of the {@code workqueues} endpoint whose body cannot
 * be read (not JSON, or not an object of plain values, such as {@code "abc"}) with a 400
 * {@link ControlError} that says what the body must be, also logged at DEBUG with the
 * parser's message: Spring MVC reads the body before the endpoint is called, and would
 * answer a bare 400.
 * <p>
 * Before the body is read, it also refuses a control field given as a JSON string, such
 * as {@code {"concurrency":"3"}}, with a 400 naming the field: once read, Boot hands
 * every value to the operation as text, where {@code "3"} and {@code 3} look alike.
 * <p>
 * Applies only to Boot's Actuator handlers over Spring MVC, and of those only to the
 * requests mapped to the {@code workqueues} endpoint: for the others it rethrows, which
 * leaves the exception to Spring MVC's default handling. It comes first among advice (an
 * application's advice for every controller would otherwise answer for the endpoint), so
 * an application's own advice does not see the unreadable bodies of the other Actuator
 * endpoints' write operations either.
 */
@RestControllerAdvice(basePackages = "org.springframework.boot.webmvc.actuate.endpoint.web")
@Order(Ordered.HIGHEST_PRECEDENCE)
public final class WorkQueuesEndpointBodyAdvice extends RequestBodyAdviceAdapter {

	/** The largest control body read for the type check; a real one is a few bytes. */
	private static final int MAX_BODY_BYTES = 16 * 1024;

	/** Spring MVC's {@code HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE}. */
	private static final String BEST_MATCHING_PATTERN = "org.springframework.web.servlet.HandlerMapping.bestMatchingPattern";

	/** Spring MVC's {@code HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE}. */
	private static final String URI_TEMPLATE_VARIABLES = "org.springframework.web.servlet.HandlerMapping.uriTemplateVariables";

	private static final Log logger = LogFactory.getLog(WorkQueuesEndpointBodyAdvice.class);

	private final Supplier<@Nullable String> endpointPath;

	/**
	 * Creates the advice.
	 * @param endpointPath the path of the {@code workqueues} endpoint, such as
	 * {@code /actuator/workqueues}, {@code null} when it is not exposed over HTTP; asked
	 * at each request
	 */
	public WorkQueuesEndpointBodyAdvice(Supplier<@Nullable String> endpointPath) {
		this.endpointPath = Objects.requireNonNull(endpointPath, "endpointPath");
	}

	/**
	 * Answers an unreadable body of a runtime-control request.
	 * @param ex what Spring MVC could not read
	 * @param request the request
	 * @return the 400 answer
	 * @throws HttpMessageNotReadableException {@code ex}, for the requests of other
	 * endpoints
	 */
	@ExceptionHandler
	ResponseEntity<ControlError> unreadableBody(HttpMessageNotReadableException ex, WebRequest request)
			throws HttpMessageNotReadableException {
		String path = this.endpointPath.get();
		Object pattern = request.getAttribute(BEST_MATCHING_PATTERN, RequestAttributes.SCOPE_REQUEST);
		if (path == null || !(pattern instanceof String mapped) || !mapped.startsWith(path + "/")) {
			throw ex;
		}
		String message = "The body must be a JSON object with " + ControlRequest.EXPECTED;
		if (logger.isDebugEnabled()) {
			logger.debug(LogMessage.format("Refused runtime control of queue '%s': %s (%s)", queueName(request),
					message, ex.getMessage()));
		}
		return ResponseEntity.badRequest().body(ControlError.badRequest(null, message).getBody());
	}

	/**
	 * Applies to the body of a request mapped to the {@code workqueues} endpoint.
	 */
	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		RequestAttributes request = RequestContextHolder.getRequestAttributes();
		return request != null
				&& mappedToTheEndpoint(request.getAttribute(BEST_MATCHING_PATTERN, RequestAttributes.SCOPE_REQUEST));
	}

	/**
	 * Refuses a control field given as a JSON string, such as
	 * {@code {"concurrency":"3"}}: Boot reads the body's values as text, where
	 * {@code "3"} could no longer be told from {@code 3}, so the body is looked at once
	 * before. A body that is not a JSON object is left to the reading, which reports it.
	 * @throws InvalidControlRequestException naming the field given as a string
	 */
	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage message, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		byte[] body = message.getBody().readNBytes(MAX_BODY_BYTES + 1);
		if (body.length <= MAX_BODY_BYTES) {
			Map<String, Object> fields;
			try {
				fields = JsonParserFactory.getJsonParser().parseMap(new String(body, StandardCharsets.UTF_8));
			}
			catch (RuntimeException ex) {
				fields = Map.of();
			}
			for (String field : List.of(ControlRequest.PAUSED, ControlRequest.CONCURRENCY)) {
				if (fields.get(field) instanceof String text) {
					throw new InvalidControlRequestException(field,
							field + " must be a JSON "
									+ (field.equals(ControlRequest.PAUSED) ? "true or false" : "number")
									+ ", not a string, was '" + ControlRequest.cut(text) + "'");
				}
			}
		}
		InputStream replay = new SequenceInputStream(new ByteArrayInputStream(body), message.getBody());
		return new HttpInputMessage() {

			@Override
			public InputStream getBody() {
				return replay;
			}

			@Override
			public HttpHeaders getHeaders() {
				return message.getHeaders();
			}

		};
	}

	/**
	 * Answers a control field of the wrong JSON type.
	 * @param ex the field and the problem
	 * @param request the request
	 * @return the 400 answer, naming the field
	 */
	@ExceptionHandler
	ResponseEntity<ControlError> wrongType(InvalidControlRequestException ex, WebRequest request) {
		logger
			.debug(LogMessage.format("Refused runtime control of queue '%s': %s", queueName(request), ex.getMessage()));
		return ResponseEntity.badRequest().body(ControlError.badRequest(ex.getField(), ex.getReason()).getBody());
	}

	private boolean mappedToTheEndpoint(@Nullable Object pattern) {
		String path = this.endpointPath.get();
		return path != null && pattern instanceof String mapped && mapped.startsWith(path + "/");
	}

	private static @Nullable Object queueName(WebRequest request) {
		Object variables = request.getAttribute(URI_TEMPLATE_VARIABLES, RequestAttributes.SCOPE_REQUEST);
		return (variables instanceof Map<?, ?> map) ? map.get("name") : null;
	}

}
