package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;

import dev.workqueue.DelayingQueue;
import dev.workqueue.shared.SharedStore;

/**
 * Opens, in a child JVM of core's process harness, a handle of a
 * {@link RedisSharedQueueContractTests} queue. Arguments: the Redis URI, the key prefix.
 */
public final class RedisProcessOpener implements SharedStore.ProcessOpener {

	@Override
	public DelayingQueue<String> open(List<String> arguments, Duration lease) {
		return RedisSharedQueueContractTests.Store.handle(RedisClient.create(arguments.get(0)), arguments.get(1),
				lease);
	}

}
