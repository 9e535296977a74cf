package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.lettuce.core.RedisClient;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

/**
 * A JVM for {@link RedisKillTests}: {@code consumers} threads each take one item of a
 * shared queue and hold it until the JVM is killed. It prints {@code waiting} once every
 * consumer waits for an item, so that one get can lease for all of them.
 * <p>
 * Arguments: Redis URI, key prefix, queue name, lease in milliseconds, consumers.
 */
public final class HoldingProcess {

	private HoldingProcess() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(args[0]);
		WorkQueue<String> queue = RedisWorkQueues.builder(client, ItemCodec.strings())
			.keyPrefix(args[1])
			.name(args[2])
			.lease(Duration.ofMillis(Long.parseLong(args[3])))
			.buildQueue();
		CountDownLatch killed = new CountDownLatch(1);
		List<Thread> consumers = new ArrayList<>();
		for (int i = 0; i < Integer.parseInt(args[4]); i++) {
			Thread consumer = new Thread(() -> {
				try {
					queue.get();
					killed.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			consumers.add(consumer);
			consumer.start();
		}
		while (!consumers.stream().allMatch((consumer) -> consumer.getState() == Thread.State.WAITING)) {
			Thread.onSpinWait();
		}
		System.out.println("waiting");
		System.out.flush();
		killed.await();
	}

}
