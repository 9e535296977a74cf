package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.Optional;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.core.log.LogMessage;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.redis.ItemCodec;
import dev.workqueue.redis.RedisRateLimiters;
import dev.workqueue.redis.RedisWorkQueues;
import dev.workqueue.time.Clock;

/**
 * The redis backend: builds the queues whose {@code backend} is {@code redis} with
 * workqueue-redis, on the application's own Redis connection, with shared rate limiters
 * built from the same YAML sections as the memory backend's.
 * <p>
 * The client is, in this order: an {@link AbstractRedisClient} bean of the application's;
 * the native client of Spring Data Redis's {@link LettuceConnectionFactory} (so AUTH,
 * TLS, Sentinel and Cluster follow {@code spring.data.redis.*} as for the rest of the
 * application); else a client this backend makes from {@code spring.data.redis.url}, or
 * {@code host}, {@code port}, {@code username}, {@code password}, {@code database} and
 * {@code ssl.enabled}, and shuts down with the context. An item type other than
 * {@code String} needs an {@link ItemCodec} bean named {@code <queue>ItemCodec}; the time
 * is the Redis server's unless the application defines a {@link Clock} bean.
 */
final class RedisBackend implements RedisQueueSource, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedisBackend.class);

	private static final String LETTUCE_CONNECTION_FACTORY = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

	private final WorkQueueProperties properties;

	private final ListableBeanFactory beanFactory;

	private final Environment environment;

	private final ObjectProvider<Clock> clock;

	private final ObjectProvider<WorkQueueMetricsFactory> metrics;

	private @Nullable AbstractRedisClient client;

	private @Nullable RedisClient ownedClient;

	RedisBackend(WorkQueueProperties properties, ListableBeanFactory beanFactory, Environment environment,
			ObjectProvider<Clock> clock, ObjectProvider<WorkQueueMetricsFactory> metrics) {
		this.properties = properties;
		this.beanFactory = beanFactory;
		this.environment = environment;
		this.clock = clock;
		this.metrics = metrics;
	}

	@Override
	public synchronized Built create(String name, WorkQueueProperties.@Nullable RateLimit rateLimit) {
		AbstractRedisClient client = client();
		ItemCodec<Object> codec = codec(name);
		Clock clock = this.clock.getIfAvailable();
		RedisRateLimiters.Builder<Object> limiters = (client instanceof RedisClusterClient cluster)
				? RedisRateLimiters.builder(cluster, codec) : RedisRateLimiters.builder((RedisClient) client, codec);
		limiters.name(name).keyPrefix(this.properties.getRedis().getKeyPrefix());
		RedisWorkQueues.Builder<Object> queues = (client instanceof RedisClusterClient cluster)
				? RedisWorkQueues.builder(cluster, codec) : RedisWorkQueues.builder((RedisClient) client, codec);
		queues.name(name)
			.keyPrefix(this.properties.getRedis().getKeyPrefix())
			.lease(this.properties.getRedis().getLease());
		if (clock != null) {
			limiters.clock(clock);
			queues.clock(clock);
		}
		WorkQueueMetricsFactory metrics = this.metrics.getIfAvailable();
		queues.metrics((metrics != null) ? metrics.metrics(name) : WorkQueueMetrics.NOOP);
		RateLimiter<Object> rateLimiter = new SharedRateLimiterKit(limiters).build(rateLimit);
		RateLimitingQueue<Object> queue = queues.buildRateLimitingQueue(rateLimiter);
		return new Built(queue, rateLimiter);
	}

	@SuppressWarnings("unchecked")
	private ItemCodec<Object> codec(String name) {
		String beanName = name + "ItemCodec";
		if (this.beanFactory.containsBean(beanName)) {
			return this.beanFactory.getBean(beanName, ItemCodec.class);
		}
		return (ItemCodec<Object>) (ItemCodec<?>) ItemCodec.strings();
	}

	private AbstractRedisClient client() {
		if (this.client == null) {
			this.client = this.beanFactory.getBeanProvider(AbstractRedisClient.class)
				.getIfAvailable(() -> springDataClient().orElseGet(this::ownClient));
		}
		return this.client;
	}

	private Optional<AbstractRedisClient> springDataClient() {
		if (!ClassUtils.isPresent(LETTUCE_CONNECTION_FACTORY, getClass().getClassLoader())) {
			return Optional.empty();
		}
		return SpringDataRedis.client(this.beanFactory);
	}

	private RedisClient ownClient() {
		Binder binder = Binder.get(this.environment);
		RedisURI.Builder uri = binder.bind("spring.data.redis.url", String.class)
			.map((url) -> RedisURI.builder(RedisURI.create(url)))
			.orElseGet(() -> RedisURI.Builder.redis(
					binder.bind("spring.data.redis.host", String.class).orElse("localhost"),
					binder.bind("spring.data.redis.port", Integer.class).orElse(6379)));
		binder.bind("spring.data.redis.database", Integer.class).ifBound(uri::withDatabase);
		binder.bind("spring.data.redis.ssl.enabled", Boolean.class).ifBound(uri::withSsl);
		binder.bind("spring.data.redis.timeout", Duration.class).ifBound(uri::withTimeout);
		String password = binder.bind("spring.data.redis.password", String.class).orElse(null);
		if (password != null) {
			String username = binder.bind("spring.data.redis.username", String.class).orElse(null);
			if (username != null) {
				uri.withAuthentication(username, password);
			}
			else {
				uri.withPassword(password.toCharArray());
			}
		}
		RedisURI built = uri.build();
		logger.info(
				LogMessage.format("Work queues with backend redis connect to %s:%d", built.getHost(), built.getPort()));
		this.ownedClient = RedisClient.create(built);
		return this.ownedClient;
	}

	@Override
	public synchronized void destroy() {
		if (this.ownedClient != null) {
			this.ownedClient.shutdown();
		}
	}

	/**
	 * The native client of Spring Data Redis's connection factory; a class of its own so
	 * that Spring Data Redis is loaded only when present.
	 */
	private static final class SpringDataRedis {

		static Optional<AbstractRedisClient> client(ListableBeanFactory beanFactory) {
			LettuceConnectionFactory factory = beanFactory.getBeanProvider(LettuceConnectionFactory.class)
				.getIfAvailable();
			return (factory != null) ? Optional.of(factory.getRequiredNativeClient()) : Optional.empty();
		}

	}

	/**
	 * The redis backend's limiters: workqueue-redis's, shared by every instance.
	 *
	 * @param limiters the builder of the queue's limiters
	 */
	private record SharedRateLimiterKit(RedisRateLimiters.Builder<Object> limiters) implements RateLimiterKit {

		@Override
		public RateLimiter<Object> exponential(Duration baseDelay, Duration maxDelay, double jitter) {
			return this.limiters.exponential(baseDelay, maxDelay, jitter);
		}

		@Override
		public RateLimiter<Object> fastSlow(Duration fastDelay, Duration slowDelay, int maxFastAttempts) {
			return this.limiters.fastSlow(fastDelay, slowDelay, maxFastAttempts);
		}

		@Override
		public RateLimiter<Object> bucket(double qps, int burst) {
			return this.limiters.bucket(qps, burst);
		}

		@Override
		public RateLimiter<Object> itemBucket(double qps, int burst) {
			return this.limiters.itemBucket(qps, burst);
		}

		@Override
		public RateLimiter<Object> defaultController() {
			return this.limiters.defaultControllerRateLimiter();
		}

	}

}
