package dev.workqueue.redis;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.shared.SharedQueueContract;
import dev.workqueue.shared.SharedStore;

/**
 * Core's {@link SharedQueueContract}, the rules of every shared store, on Redis: each
 * test's queue lives under a key prefix of its own on the shared server, and each handle
 * has a client of its own. The leases hook reads and writes the queue's keys, and empties
 * the store by deleting them. Redis has no row locks: the test that locks an item's row
 * is skipped.
 */
@RequiresRedis
class RedisSharedQueueContractTests extends SharedQueueContract {

	@Override
	protected SharedStore newStore() {
		return new Store();
	}

	/** One test's queue: a {@link RedisFixture}'s prefix, a client per handle. */
	static final class Store implements SharedStore {

		private static final String NAME = "shared";

		/**
		 * What the tick does to a lease that ran out: the lease is gone, the item queued
		 * again at the back of the line.
		 */
		private static final String EXPIRE = """
				if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
				redis.call('ZREM', KEYS[2], ARGV[1])
				local time = redis.call('TIME')
				redis.call('HSETNX', KEYS[3], ARGV[1], time[1] .. string.format('%06d', time[2]))
				redis.call('RPUSH', KEYS[4], ARGV[1])
				return 1""";

		private final RedisFixture redis = new RedisFixture();

		private final List<RedisClient> clients = new ArrayList<>();

		@Override
		public String name() {
			return "Redis";
		}

		@Override
		public String claimMarker() {
			// A claim is the get script, called by its SHA-1.
			return LuaScript.GET.sha1();
		}

		@Override
		public DelayingQueue<String> open(Duration lease) {
			return open(RedisServers.shared(), lease);
		}

		@Override
		public DelayingQueue<String> open(Duration lease, int port) {
			return open(RedisURI.create("127.0.0.1", port), lease);
		}

		private DelayingQueue<String> open(RedisURI uri, Duration lease) {
			RedisClient client = RedisClient.create(uri);
			this.clients.add(client);
			return this.redis.track(handle(client, this.redis.prefix, lease));
		}

		static DelayingQueue<String> handle(RedisClient client, String prefix, Duration lease) {
			return RedisWorkQueues.builder(client, ItemCodec.strings())
				.keyPrefix(prefix)
				.name(NAME)
				.lease(lease)
				.buildDelayingQueue();
		}

		@Override
		public InetSocketAddress server() {
			RedisURI shared = RedisServers.shared();
			return new InetSocketAddress(shared.getHost(), shared.getPort());
		}

		@Override
		public Optional<Duration> latestLease() {
			// The processing set's scores are the leases' ends, in µs on the server's
			// clock.
			List<ScoredValue<String>> latest = this.redis.redis()
				.zrangeWithScores(this.redis.key(NAME, "processing"), -1, -1);
			if (latest.isEmpty()) {
				return Optional.empty();
			}
			List<String> time = this.redis.redis().time();
			long nowMicros = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
			return Optional.of(Duration.ofNanos(((long) latest.get(0).getScore() - nowMicros) * 1000));
		}

		@Override
		public Optional<Leases> leases() {
			return Optional.of(new Leases() {

				@Override
				public String token(String item) {
					return Store.this.redis.redis().hget(key("leases"), item);
				}

				@Override
				public void expire(String item) {
					Long expired = Store.this.redis.redis()
						.eval(EXPIRE, ScriptOutputType.INTEGER,
								new String[] { key("leases"), key("processing"), key("dirty"), key("queue") }, item);
					if (expired != 1) {
						throw new IllegalStateException(item + " was not leased");
					}
				}

				@Override
				public void empty() {
					Store.this.redis.deleteKeys();
				}

			});
		}

		private String key(String part) {
			return this.redis.key(NAME, part);
		}

		@Override
		public List<String> processOpener() {
			return List.of(RedisProcessOpener.class.getName(), RedisServers.shared().toURI().toString(),
					this.redis.prefix);
		}

		@Override
		public void close() throws Exception {
			try {
				this.redis.close();
			}
			finally {
				this.clients.forEach(RedisClient::shutdown);
			}
		}

	}

}
