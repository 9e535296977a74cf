package dev.workqueue.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

/**
 * A worker JVM for {@link ThreeProcessTests}: takes items of one shared queue and
 * records, in Redis, who held and who finished each one. While it holds an item it keeps
 * a marker set with {@code SET NX}; finding the marker taken means two live holders, and
 * is recorded as a violation.
 * <p>
 * Arguments: Redis URI, key prefix, queue name, lease in milliseconds, results key, and
 * optionally {@code hang}: then the worker hangs on its first item, as a stuck job in a
 * JVM about to die, so that the test knows one item it holds when it kills it.
 */
public final class QueueWorkerProcess {

	private QueueWorkerProcess() {
	}

	public static void main(String[] args) throws Exception {
		String uri = args[0];
		String prefix = args[1];
		String name = args[2];
		Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
		String results = args[4];
		boolean hang = args.length > 5 && "hang".equals(args[5]);
		String pid = Long.toString(ProcessHandle.current().pid());
		RedisClient client = RedisClient.create(uri);
		StatefulRedisConnection<String, String> connection = client.connect();
		RedisCommands<String, String> redis = connection.sync();
		WorkQueue<String> queue = RedisWorkQueues.builder(client, ItemCodec.strings())
			.keyPrefix(prefix)
			.name(name)
			.lease(lease)
			.buildQueue();
		// Shorter than the lease: a killed holder's marker is gone before its item
		// returns.
		SetArgs marker = SetArgs.Builder.nx().px(lease.toMillis() - 200);
		System.out.println("ready " + pid);
		System.out.flush();
		String item;
		while ((item = queue.get()) != null) {
			redis.hset(results + ":holders", item, pid);
			if (!"OK".equals(redis.set(results + ":marker:" + item, pid, marker))) {
				redis.rpush(results + ":violations",
						item + " taken by " + pid + " while held by " + redis.get(results + ":marker:" + item));
			}
			if (hang) {
				// A stuck job: holds the item (its lease renewed) until the JVM is
				// killed.
				new CountDownLatch(1).await();
			}
			redis.hincrby(results + ":processed", item, 1);
			redis.hset(results + ":doneby", item, pid);
			redis.del(results + ":marker:" + item);
			queue.done(item);
		}
		connection.close();
		client.shutdown();
	}

}
