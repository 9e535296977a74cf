package dev.workqueue.sample;

/**
 * What this instance delivered and gave up since it started; with several instances, the
 * sums over them are the totals.
 *
 * @param deliveries how many batches were delivered
 * @param payloads how many payloads those batches held
 * @param deadLetters how many items were given up
 * @param droppedPayloads how many payloads were dropped with the given-up targets
 */
public record DeliveryTotals(long deliveries, long payloads, long deadLetters, long droppedPayloads) {

}
