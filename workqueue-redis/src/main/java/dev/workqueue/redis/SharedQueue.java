package dev.workqueue.redis;

import dev.workqueue.spi.SharedWorkQueue;

/**
 * What a queue shared through Redis tells beyond {@link dev.workqueue.WorkQueue}: every
 * queue {@link RedisWorkQueues} builds implements it. For operations and shutdown code,
 * such as the Spring starter's worker containers and Actuator endpoint.
 */
public interface SharedQueue extends SharedWorkQueue {

	/**
	 * Hands every item this instance holds under lease back to the queue at once,
	 * unprocessed, instead of letting the leases run out: for a shutdown whose workers
	 * did not finish in time. A later {@code done} of such an item changes nothing.
	 * @return how many items were handed back
	 * @throws RedisQueueException if Redis cannot be reached (the leases then run out)
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
	 * Returns how many payloads this instance moved to the dead-letter list because the
	 * codec could not decode them.
	 * @return the dead-lettered payloads
	 */
	long deadLettered();

	/**
	 * Returns how many items of the shared queue are pending: added and not handed out
	 * yet, including those added again while being processed (client-go's depth, and
	 * {@link dev.workqueue.WorkQueueStats#pending()}; not
	 * {@link dev.workqueue.WorkQueueStats#depth()}, which counts the ready items only).
	 * @return the shared pending items, read from Redis
	 */
	int pending();

	/**
	 * Describes the Redis server the queue last connected to, for messages.
	 * @return the server's address, or a placeholder before the first connection
	 */
	String server();

}
