package dev.workqueue.redis;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.redis.RedisQueueException.Reason;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.store.ItemTaker;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.SharedStoreQueue;
import dev.workqueue.store.TimedWork;
import dev.workqueue.time.Clock;

/**
 * One instance's handle on a queue that every instance with the same key prefix and name
 * shares through Redis: core's {@link SharedStoreQueue} over Redis's drivers
 * ({@link HandleScripts}, {@link ItemClaims}, {@link ReleaseScripts},
 * {@link QueueTimer}), built by {@link RedisWorkQueues}. All its shared state lives under
 * the keys of {@link QueueKeys}, each change of it one Lua script, atomic on the server.
 * <p>
 * Its only addition is the deprecated {@link SharedQueue}, and so the shared-store
 * engine's {@link dev.workqueue.store.SharedQueue}, so that lookups of either (with
 * {@code capability}, or a cast) find it.
 *
 * @param <T> the item type
 */
@SuppressWarnings("deprecation")
final class RedisWorkQueue<T> extends SharedStoreQueue<T, RedisLease> implements SharedQueue {

	RedisWorkQueue(String name, ItemCodec<T> codec, HandleScripts driver, Clock clock, WorkQueueMetrics metrics,
			LeaseBook<T, RedisLease> book, ReadySignal signal, HandleLifecycle lifecycle,
			ItemTaker<T, RedisLease> taker, LeaseReleases<T, RedisLease> releases, TimedWork<RedisLease, Reason> work,
			TraceContextSource traceSource) {
		super(name, codec, driver, clock, metrics, book, signal, lifecycle, taker, releases, work, traceSource);
	}

}
