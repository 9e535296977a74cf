package dev.workqueue.sample;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * Turns bad requests of the webhook API into {@code 400} problem details with a
 * {@code field} property; the Actuator's endpoints answer theirs themselves.
 */
@RestControllerAdvice(assignableTypes = WebhookController.class)
class BadRequestAdvice {

	@ExceptionHandler
	ProblemDetail invalidRequest(InvalidRequestException ex) {
		return badRequest(ex.getField(), ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail missingParameter(MissingServletRequestParameterException ex) {
		return badRequest(ex.getParameterName(), ex.getParameterName() + " is required");
	}

	@ExceptionHandler
	ProblemDetail typeMismatch(MethodArgumentTypeMismatchException ex) {
		return badRequest(ex.getName(), ex.getName() + " has an invalid value: " + ex.getValue());
	}

	@ExceptionHandler
	ProblemDetail unreadableBody(HttpMessageNotReadableException ex) {
		return badRequest("body",
				"body must be a JSON object with targetId, payload and an optional whole-number priority");
	}

	private static ProblemDetail badRequest(String field, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
		problem.setProperty("field", field);
		return problem;
	}

}
