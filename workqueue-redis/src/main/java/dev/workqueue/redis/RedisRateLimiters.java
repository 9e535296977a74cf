package dev.workqueue.redis;

import java.time.Duration;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

import dev.workqueue.ItemCodec;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.MaxOfRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.store.SharedLimiterFactory;
import dev.workqueue.time.Clock;

/**
 * Rate limiters whose state lives in Redis, so that every instance of an application
 * shares it: one failure history per item, and one token bucket per queue (or per item),
 * whichever instance asks. They are client-go's limiters with the same delays as core's
 * {@link dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter},
 * {@link dev.workqueue.ratelimit.ItemFastSlowRateLimiter},
 * {@link dev.workqueue.ratelimit.BucketRateLimiter} and
 * {@link dev.workqueue.ratelimit.ItemBucketRateLimiter}; combine them with core's
 * {@link MaxOfRateLimiter} and {@link dev.workqueue.ratelimit.WithMaxWaitRateLimiter},
 * which only compare and cap the delays. <pre class="code">
 * RateLimiter&lt;String&gt; limiter = RedisRateLimiters.builder(client, ItemCodec.strings())
 *     .name("orders")
 *     .defaultControllerRateLimiter();
 * </pre> A queue's builder hands out a builder of its limiters with its client, codec,
 * name, key prefix, clock and command timeout set:
 * {@link RedisWorkQueues.Builder#rateLimiters()}. Their keys share the queue's hash tag:
 * {@code <prefix>{<name>}:failures:...}, {@code ...:bucket} and
 * {@code ...:item-bucket:<item>}. Buckets expire once full again, so idle ones cost
 * nothing; a failure count lives until {@code forget}, or until no failure was counted
 * for the {@linkplain Builder#historyTtl history's time to live}. Time is the Redis
 * server's, or the builder's {@link Clock} anchored on the server's time. Each call is
 * one script: {@code when} and {@code forget} throw {@link RedisQueueException} when
 * Redis cannot be reached.
 */
public final class RedisRateLimiters {

	private RedisRateLimiters() {
	}

	/**
	 * Returns a builder of limiters on a standalone or Sentinel-managed Redis.
	 * @param client the application's client
	 * @param codec turns items into the keys of their history
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder(RedisClient client, ItemCodec<T> codec) {
		return builder((AbstractRedisClient) client, codec);
	}

	/**
	 * Returns a builder of limiters on a Redis Cluster.
	 * @param client the application's cluster client
	 * @param codec turns items into the keys of their history
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder(RedisClusterClient client, ItemCodec<T> codec) {
		return builder((AbstractRedisClient) client, codec);
	}

	/**
	 * Returns a builder of limiters on whichever Redis the client reaches.
	 * @param client a {@link RedisClient} or a {@link RedisClusterClient}
	 * @param codec turns items into the keys of their history
	 * @param <T> the item type
	 * @return a new builder
	 * @throws IllegalArgumentException if the client is of another kind
	 */
	public static <T> Builder<T> builder(AbstractRedisClient client, ItemCodec<T> codec) {
		return new Builder<>(new RedisOptions<>(client, codec));
	}

	/**
	 * Builds shared limiters for one queue. The name is required; instances that build a
	 * limiter of the same kind with the same prefix and name share its state. All the
	 * limiters of one builder share one connection. Not thread-safe; the limiters are.
	 *
	 * @param <T> the item type
	 */
	public static final class Builder<T> extends SharedLimiterFactory<T> {

		/** What the limiters have in common with their queue. */
		private final RedisOptions<T> options;

		private Duration historyTtl = DEFAULT_HISTORY_TTL;

		Builder(RedisOptions<T> options) {
			this.options = options;
		}

		/**
		 * Sets the name of the queue the limiters serve (required).
		 * @param name the name, not empty and without braces
		 * @return this builder
		 */
		public Builder<T> name(String name) {
			this.options.name(name);
			return this;
		}

		/**
		 * Sets the prefix of the limiters' keys (default {@code workqueue:}).
		 * @param prefix the prefix, without braces
		 * @return this builder
		 */
		public Builder<T> keyPrefix(String prefix) {
			this.options.keyPrefix(prefix);
			return this;
		}

		/**
		 * Sets the clock of the token buckets (default: the Redis server's), anchored on
		 * the server's time at the first call that needs it (its readings count from an
		 * arbitrary origin); every instance must then be given one.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder<T> clock(Clock clock) {
			this.options.clock(clock);
			return this;
		}

		/**
		 * Sets how long a call may take (default 5 seconds, at least 10 ms).
		 * @param commandTimeout the timeout
		 * @return this builder
		 */
		public Builder<T> commandTimeout(Duration commandTimeout) {
			this.options.commandTimeout(commandTimeout);
			return this;
		}

		/**
		 * Sets how long the failure history of the queue (the limiters' counts and the
		 * {@link #attempts()}) stays in Redis after its last failure (default 1 day): the
		 * history of items that were never forgotten, such as deleted objects, does not
		 * stay for ever.
		 * @param historyTtl the time to live, from 1 second to 100 years
		 * @return this builder
		 */
		public Builder<T> historyTtl(Duration historyTtl) {
			this.historyTtl = checkedHistoryTtl(historyTtl);
			return this;
		}

		@Override
		protected RateLimiter<T> storeBucket(double qps, int burst) {
			return new SharedBucketRateLimiter<>(scripts(), this.options.codec, key("bucket"), false, qps, burst);
		}

		@Override
		protected RateLimiter<T> storeItemBucket(double qps, int burst) {
			return new SharedBucketRateLimiter<>(scripts(), this.options.codec, key("item-bucket:"), true, qps, burst);
		}

		private String key(String part) {
			return QueueKeys.key(this.options.keyPrefix(), name(), part);
		}

		private String name() {
			return this.options.requiredName("the limiters' keys carry the queue's name");
		}

		@Override
		protected FailureCounts<T> failureCounts(String part) {
			return new RedisFailureCounts<>(scripts(), this.options.codec, key(part), this.historyTtl.toMillis());
		}

		private LimiterScripts scripts() {
			return new LimiterScripts(this.options.client, "Limiters of queue '" + name() + "'", this.options.clock(),
					this.options.commandTimeout());
		}

	}

}
