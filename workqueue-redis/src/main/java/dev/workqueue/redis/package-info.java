/**
 * workqueue's queues on Redis, shared by every instance of an application and kept across
 * restarts: {@link dev.workqueue.redis.RedisWorkQueues} builds them,
 * {@link dev.workqueue.redis.RedisRateLimiters} builds rate limiters whose state is
 * shared too.
 * <p>
 * <b>How it works.</b> A queue is up to fourteen keys with one hash tag (so it lives on
 * one Cluster node): the ready list, client-go's dirty set (a hash from item to the time
 * it was queued), the items being processed (a sorted set by lease expiry) with their
 * holders' tokens, the delayed items (a sorted set by ready time), the given-up records
 * (a hash, and a sorted set by time), the paused flag, the reporter role, what recent
 * gets leased (so that a get sent again answers the same), the wake list and the queue's
 * format mark ({@code QueueKeys} lists them); a priority queue keeps its ready items in a
 * sorted set by priority and ready order instead of the list, with a sorted set by ready
 * time (the starvation guard) and a hash of ready-order numbers and priorities. Each
 * operation is one Lua script, atomic on the server, whose header states its keys,
 * arguments and reply. Consumers wait on pub/sub notices rather than polling. Every queue
 * and limiter on one client shares one command connection, one pub/sub connection and one
 * timer thread, which moves due items, reaps expired leases and renews each handle's own.
 * A handle is core's shared-store engine ({@link dev.workqueue.store.SharedStoreQueue})
 * over this package's drivers; see {@code RedisWorkQueue} for them.
 */
package dev.workqueue.redis;
