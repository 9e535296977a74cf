package dev.workqueue.benchmarks;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.redis.RedisWorkQueues;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

/**
 * Our side of the Redis benchmarks: {@code workqueue-redis} as a user builds it (CONTRACT
 * §3), with every default: key prefix {@code workqueue:}, 30 s leases renewed while held,
 * the Redis server's clock. Each item gets a lease when handed out and is deduplicated
 * while it waits: work Redisson does not do.
 */
class OursRedisContender implements RedisContender {

	/** The worker containers' default {@code poll-timeout}. */
	private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);

	private RedisClient client;

	@Override
	public void open(String clientName) {
		this.client = RedisClient.create(RedisURI.builder()
			.withHost(RedisAdmin.HOST)
			.withPort(RedisAdmin.PORT)
			.withClientName(clientName)
			.build());
	}

	@Override
	public Queue queue(String name) {
		return new OursQueue(RedisWorkQueues.builder(this.client, ItemCodec.strings()).name(name).buildQueue(), null);
	}

	/**
	 * Our priority queue instead of the plain one (issue 21): each item at one of eight
	 * priorities, from its hash, with the default controller limiter.
	 */
	static final class Priority extends OursRedisContender {

		@Override
		public Queue queue(String name) {
			PriorityQueue<String> queue = RedisWorkQueues.builder(client(), ItemCodec.strings())
				.name(name)
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
			return new OursQueue(queue, queue) {

				@Override
				public void add(String item) {
					queue.add(item, item.hashCode() & 7);
				}

			};
		}

	}

	RedisClient client() {
		return this.client;
	}

	@Override
	public Queue delayingQueue(String name) {
		DelayingQueue<String> queue = RedisWorkQueues.builder(this.client, ItemCodec.strings())
			.name(name)
			.buildDelayingQueue();
		return new OursQueue(queue, queue);
	}

	@Override
	public void close() {
		if (this.client != null) {
			this.client.shutdown();
		}
	}

	private static class OursQueue implements Queue {

		private final WorkQueue<String> queue;

		private final DelayingQueue<String> delaying;

		/** Each worker thread's poller, as a worker container gives each its own. */
		private final ThreadLocal<Poller<String>> pollers;

		OursQueue(WorkQueue<String> queue, DelayingQueue<String> delaying) {
			this.queue = queue;
			this.delaying = delaying;
			this.pollers = ThreadLocal.withInitial(() -> Pollers.of(queue));
		}

		@Override
		public void add(String item) {
			this.queue.add(item);
		}

		@Override
		public void addAfter(String item, Duration delay) {
			this.delaying.addAfter(item, delay);
		}

		@Override
		public String get() throws InterruptedException {
			return this.queue.get();
		}

		@Override
		public void done(String item) {
			this.queue.done(item);
		}

		/** As a worker container does: done with the next poll, then a plain get. */
		@Override
		public String doneAndGet(String item) throws InterruptedException {
			PriorityQueue.Prioritized<String> next = this.pollers.get().doneAndPoll(item, POLL_TIMEOUT);
			return (next != null) ? next.item() : get();
		}

		@Override
		public void stop() {
			this.queue.shutDown();
		}

	}

}
