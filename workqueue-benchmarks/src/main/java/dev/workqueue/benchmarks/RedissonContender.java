package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's side of the Redis benchmarks: what users run today (issue 12), with
 * Redisson's defaults (connection pool, ping interval, threads) except the codec: items
 * are stored as plain strings ({@link StringCodec}), as ours are, so both sides store the
 * same bytes per item.
 * <p>
 * {@code add} is {@link RBlockingQueue#add} (RPUSH), {@code get} is
 * {@link RBlockingQueue#take} (BLPOP), {@code done} does nothing: the item left Redis
 * when it was taken (at most once: no lease, and no dedup). Delays go through
 * {@link RDelayedQueue#offer}, whose transfer task moves due items to the blocking queue
 * the consumers take from.
 */
final class RedissonContender implements RedisContender {

	private RedissonClient redisson;

	@Override
	public void open(String clientName) {
		Config config = new Config();
		config.setCodec(StringCodec.INSTANCE);
		config.useSingleServer()
			.setAddress("redis://" + RedisAdmin.HOST + ":" + RedisAdmin.PORT)
			.setClientName(clientName);
		this.redisson = Redisson.create(config);
	}

	@Override
	public Queue queue(String name) {
		return new RedissonQueue(this.redisson.getBlockingQueue(name, StringCodec.INSTANCE), null);
	}

	@Override
	// Deprecated for RReliableQueue, which the open-source jar does not implement.
	@SuppressWarnings("deprecation")
	public Queue delayingQueue(String name) {
		RBlockingQueue<String> queue = this.redisson.getBlockingQueue(name, StringCodec.INSTANCE);
		return new RedissonQueue(queue, this.redisson.getDelayedQueue(queue));
	}

	@Override
	public void close() {
		if (this.redisson != null) {
			this.redisson.shutdown();
		}
	}

	@SuppressWarnings("deprecation")
	private static final class RedissonQueue implements Queue {

		private final RBlockingQueue<String> queue;

		private final RDelayedQueue<String> delayed;

		RedissonQueue(RBlockingQueue<String> queue, RDelayedQueue<String> delayed) {
			this.queue = queue;
			this.delayed = delayed;
		}

		@Override
		public void add(String item) {
			this.queue.add(item);
		}

		@Override
		public void addAfter(String item, Duration delay) {
			this.delayed.offer(item, delay.toMillis(), TimeUnit.MILLISECONDS);
		}

		@Override
		public String get() throws InterruptedException {
			return this.queue.take();
		}

		@Override
		public void done(String item) {
		}

		@Override
		public void stop() {
			if (this.delayed != null) {
				this.delayed.destroy();
			}
		}

	}

}
