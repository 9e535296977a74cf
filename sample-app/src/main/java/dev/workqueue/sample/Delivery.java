package dev.workqueue.sample;

/**
 * A batch of payloads delivered to one target.
 *
 * @param id the delivery id, also the key on the {@code receipts} queue
 * @param targetId the target delivered to
 * @param payloads how many payloads the batch held
 * @param receiptConfirmed whether the target confirmed the receipt
 */
public record Delivery(String id, String targetId, int payloads, boolean receiptConfirmed) {

	Delivery confirmed() {
		return new Delivery(this.id, this.targetId, this.payloads, true);
	}

}
