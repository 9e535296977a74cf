package dev.workqueue.sample;

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
