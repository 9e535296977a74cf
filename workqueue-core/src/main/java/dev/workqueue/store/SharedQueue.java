package dev.workqueue.store;

import dev.workqueue.spi.SharedWorkQueue;

/**
 * What a queue shared through a store tells beyond {@link dev.workqueue.WorkQueue}: every
 * handle of a shared store (Redis, PostgreSQL) implements it, found with
 * {@code capability(SharedQueue.class)}. For operations and shutdown code, such as the
 * Spring starter's worker containers and Actuator endpoint.
 * <p>
 * Thread-safe. The methods that read the store block for one round trip and throw the
 * store's unchecked exception when it cannot be reached.
 */
public interface SharedQueue extends SharedWorkQueue {

	/**
	 * Hands every item this instance holds under lease back to the queue at once,
	 * unprocessed, instead of letting the leases run out: for a shutdown whose workers
	 * did not finish in time. A later {@code done} of such an item changes nothing.
	 * @return how many items were handed back
	 * @throws RuntimeException the store's exception if it cannot be reached (the leases
	 * then run out)
	 */
	@Override
	int handBack();

	/**
	 * Returns how many items this instance holds under lease.
	 * @return the items handed out here and not yet done
	 */
	int held();

	/**
	 * Returns how many expired leases this instance has found and handed back to the
	 * queue, whoever held them.
	 * @return the stalled items handed back by this instance
	 */
	long stalled();

	/**
	 * Returns how many payloads this instance moved to the dead letters because the codec
	 * could not decode them, or the decoded item's {@code hashCode} or {@code equals}
	 * threw.
	 * @return the dead-lettered payloads
	 */
	long deadLettered();

	/**
	 * Returns how many items of the shared queue are pending: added and not handed out
	 * yet, including those added again while being processed (client-go's depth, and
	 * {@link dev.workqueue.WorkQueueStats#pending()}; not
	 * {@link dev.workqueue.WorkQueueStats#depth()}, which counts the ready items only).
	 * @return the shared pending items, read from the store
	 */
	int pending();

	/**
	 * Describes where the store keeps the queue, for messages: the Redis server the queue
	 * last connected to, the PostgreSQL table.
	 * @return the description, or a placeholder before the first connection
	 */
	String server();

}
