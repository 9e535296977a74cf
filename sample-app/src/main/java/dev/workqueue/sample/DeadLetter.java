package dev.workqueue.sample;

/**
 * A work item the workers gave up on.
 *
 * @param queue the queue it came from
 * @param item the item (a target id or a delivery id)
 * @param attempts how many attempts were made
 * @param reason the message of the last failure
 * @param droppedPayloads payloads that were waiting for the target and are not delivered
 */
public record DeadLetter(String queue, String item, int attempts, String reason, int droppedPayloads) {

}
