package dev.workqueue.sample;

/**
 * The body of {@code POST /webhooks}.
 *
 * @param targetId the receiving target: 1 to 64 letters, digits, '-', '_' or '.'
 * @param payload what to deliver, not blank, at most 4096 characters
 */
public record WebhookRequest(String targetId, String payload) {

	private static final String TARGET_ID_PATTERN = "[A-Za-z0-9._-]{1,64}";

	private static final int MAX_PAYLOAD_LENGTH = 4096;

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
	}

}
