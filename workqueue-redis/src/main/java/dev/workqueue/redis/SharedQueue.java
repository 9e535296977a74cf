package dev.workqueue.redis;

/**
 * The operations view of the Redis backend's first release, now
 * {@link dev.workqueue.store.SharedQueue} in core (the PostgreSQL backend's handles
 * implement it too). Kept so that code written against it compiles and finds the Redis
 * handle unchanged: every Redis handle implements this one, and so the core interface.
 * Its {@link #server()} is the Redis server the queue last connected to, and its reads
 * throw {@link RedisQueueException} when Redis cannot be reached.
 *
 * @deprecated use {@link dev.workqueue.store.SharedQueue}
 */
@Deprecated
public interface SharedQueue extends dev.workqueue.store.SharedQueue {

}
