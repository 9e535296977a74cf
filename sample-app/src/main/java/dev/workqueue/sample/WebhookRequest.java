package dev.workqueue.sample;

import java.util.Set;

import tools.jackson.databind.JsonNode;

import dev.workqueue.PriorityQueue;

/**
 * The body of {@code POST /webhooks}.
 *
 * @param targetId the receiving target: 1 to 64 letters, digits, '-', '_' or '.'
 * @param payload what to deliver, not blank, at most 4096 characters
 * @param priority how urgent the delivery is: a higher one is delivered before waiting
 * targets of lower ones; 0 when left out, from {@link PriorityQueue#MIN_PRIORITY} to
 * {@link PriorityQueue#MAX_PRIORITY}
 */
public record WebhookRequest(String targetId, String payload, Integer priority) {

	private static final String TARGET_ID_PATTERN = "[A-Za-z0-9._-]{1,64}";

	private static final int MAX_PAYLOAD_LENGTH = 4096;

	private static final String FIELDS = "targetId, payload and an optional whole-number priority";

	private static final Set<String> FIELD_NAMES = Set.of("targetId", "payload", "priority");

	/**
	 * Reads a request from its JSON body, strictly: an object of the three fields only,
	 * the two texts as JSON strings and the priority as a whole number. (Jackson as Boot
	 * sets it up would drop an unknown field, take {@code 1.5} for 1 and {@code "5"} for
	 * 5.)
	 * @param body the JSON body
	 * @return the request, not yet {@linkplain #validate() validated}
	 * @throws InvalidRequestException naming the first field that is unknown or of the
	 * wrong type
	 */
	static WebhookRequest read(JsonNode body) {
		if (!body.isObject()) {
			throw new InvalidRequestException("body", "must be a JSON object with " + FIELDS);
		}
		for (String name : body.propertyNames()) {
			if (!FIELD_NAMES.contains(name)) {
				throw new InvalidRequestException(name, "is not a field of a webhook: give " + FIELDS);
			}
		}
		return new WebhookRequest(text(body, "targetId"), text(body, "payload"), wholeNumber(body, "priority"));
	}

	private static String text(JsonNode body, String field) {
		JsonNode value = body.get(field);
		if (value == null || value.isNull()) {
			return null;
		}
		if (!value.isString()) {
			throw new InvalidRequestException(field, "must be a JSON string, was " + value);
		}
		return value.stringValue();
	}

	private static Integer wholeNumber(JsonNode body, String field) {
		JsonNode value = body.get(field);
		if (value == null || value.isNull()) {
			return null;
		}
		if (!value.isIntegralNumber() || !value.canConvertToInt()) {
			throw new InvalidRequestException(field, "must be a whole number, was " + value);
		}
		return value.intValue();
	}

	/**
	 * Creates a request; a missing priority is 0.
	 * @param targetId the receiving target
	 * @param payload what to deliver
	 * @param priority how urgent the delivery is, or {@code null} for 0
	 */
	public WebhookRequest {
		priority = (priority != null) ? priority : 0;
	}

	/**
	 * Checks the request.
	 * @throws InvalidRequestException naming the first bad field
	 */
	void validate() {
		if (this.targetId == null || !this.targetId.matches(TARGET_ID_PATTERN)) {
			throw new InvalidRequestException("targetId", "must be 1 to 64 letters, digits, '-', '_' or '.'");
		}
		if (this.payload == null || this.payload.isBlank()) {
			throw new InvalidRequestException("payload", "must not be blank");
		}
		if (this.payload.length() > MAX_PAYLOAD_LENGTH) {
			throw new InvalidRequestException("payload", "must be at most " + MAX_PAYLOAD_LENGTH + " characters");
		}
		if (this.priority < PriorityQueue.MIN_PRIORITY || this.priority > PriorityQueue.MAX_PRIORITY) {
			throw new InvalidRequestException("priority", "must be between " + PriorityQueue.MIN_PRIORITY + " and "
					+ PriorityQueue.MAX_PRIORITY + ", was " + this.priority);
		}
	}

}
