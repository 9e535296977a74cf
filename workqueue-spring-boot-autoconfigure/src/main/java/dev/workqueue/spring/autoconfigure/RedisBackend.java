package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

import io.lettuce.core.AbstractRedisClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.NamedBeanHolder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.core.log.LogMessage;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.workqueue.ItemCodec;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.redis.RedisRateLimiters;
import dev.workqueue.redis.RedisWorkQueues;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.time.Clock;

/**
 * The redis backend: builds the queues whose {@code backend} is {@code redis} with
 * workqueue-redis, on the Redis connection Spring Boot gives the application, with shared
 * rate limiters built from the same YAML sections as the memory backend's, and counts
 * failures in Redis so that {@code max-retries} holds across instances.
 * <p>
 * The client is, in this order: an {@link AbstractRedisClient} bean of the application's;
 * the native client of Spring Data Redis's {@link LettuceConnectionFactory} (Boot's, or
 * the application's own, which then replaces Boot's), so that every
 * {@code spring.data.redis.*} property applies as for the rest of the application; else a
 * client made from Boot's {@link DataRedisConnectionDetails} bean (how
 * {@code @ServiceConnection} and Docker Compose reach an application without a connection
 * factory), which this backend shuts down with the context. All the queues and limiters
 * share that one client. The queues are shut down when this backend stops, after the
 * workers and before the connection factory closes the client, and closed before the bean
 * that owns the client is destroyed.
 * <p>
 * Each queue, a priority queue too, is customized by every
 * {@link RedisWorkQueueCustomizer} bean in order, after its name, key prefix, lease and
 * metrics are set. An item type other than {@code String} needs an {@link ItemCodec} bean
 * named {@code <queue>ItemCodec}. The time is the Redis server's unless a customizer
 * gives the builder a clock: the application's {@link Clock} bean times its memory queues
 * only (contract §3), and the limiters take the queue builder's clock.
 */
final class RedisBackend extends SharedQueuesLifecycle implements QueueBackend, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedisBackend.class);

	private final String beanName;

	private final String keyPrefix;

	private final Duration lease;

	private final ConfigurableListableBeanFactory beanFactory;

	private final ObjectProvider<WorkQueueMetricsFactory> metrics;

	private final ObjectProvider<RedisWorkQueueCustomizer> customizers;

	private @Nullable AbstractRedisClient client;

	private @Nullable AbstractRedisClient ownedClient;

	/**
	 * Creates the backend.
	 * @param beanName its own bean name, which the queues depend on
	 * @param redis the {@code workqueue.redis.*} properties
	 * @param beanFactory where to find the client
	 * @param metrics the metrics of each queue, if any
	 * @param customizers the customizers of the queue builders
	 */
	RedisBackend(String beanName, WorkQueueProperties.Redis redis, ConfigurableListableBeanFactory beanFactory,
			ObjectProvider<WorkQueueMetricsFactory> metrics, ObjectProvider<RedisWorkQueueCustomizer> customizers) {
		this.beanName = beanName;
		this.keyPrefix = redis.getKeyPrefix();
		this.lease = redis.getLease();
		this.beanFactory = beanFactory;
		this.metrics = metrics;
		this.customizers = customizers;
	}

	@Override
	public synchronized BuiltQueue create(QueueSettings settings) {
		String name = settings.name();
		AbstractRedisClient client = client(name);
		ItemCodec<Object> codec = QueueItemCodecs.of(this.beanFactory, name);
		RedisWorkQueues.Builder<Object> queues = RedisWorkQueues.builder(client, codec)
			.name(name)
			.keyPrefix(this.keyPrefix)
			.lease(this.lease);
		WorkQueueMetricsFactory metrics = this.metrics.getIfAvailable();
		queues.metrics((metrics != null) ? metrics.metrics(name, settings.latencyTimers()) : WorkQueueMetrics.NOOP);
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(name, queues));
		// The queue builder's own limiters: on its clock, if a customizer gave one.
		RedisRateLimiters.Builder<Object> limiters = queues.rateLimiters();
		RateLimiter<Object> rateLimiter = new SharedRateLimiterKit(limiters).build(settings.rateLimiter());
		RateLimitingQueue<Object> queue = settings.priority()
			.build(queues::starvationTimeout, () -> queues.buildPriorityQueue(rateLimiter),
					() -> queues.buildRateLimitingQueue(rateLimiter));
		track(queue);
		return new BuiltQueue(settings, queue, rateLimiter, limiters.attempts());
	}

	private AbstractRedisClient client(String queueName) {
		if (this.client == null) {
			this.client = clientBean(AbstractRedisClient.class, Function.identity())
				.or(() -> clientBean(LettuceConnectionFactory.class, LettuceConnectionFactory::getRequiredNativeClient))
				.orElseGet(() -> connectionDetailsClient(queueName));
		}
		return this.client;
	}

	/**
	 * The client of the bean of {@code type}, if there is one; the queues are then closed
	 * before that bean is destroyed.
	 */
	private <B> Optional<AbstractRedisClient> clientBean(Class<B> type, Function<B, AbstractRedisClient> client) {
		if (this.beanFactory.getBeanNamesForType(type).length == 0) {
			return Optional.empty();
		}
		NamedBeanHolder<B> bean = this.beanFactory.resolveNamedBean(type);
		this.beanFactory.registerDependentBean(bean.getBeanName(), this.beanName);
		return Optional.of(client.apply(bean.getBeanInstance()));
	}

	private AbstractRedisClient connectionDetailsClient(String queueName) {
		DataRedisConnectionDetails details = this.beanFactory.getBeanProvider(DataRedisConnectionDetails.class)
			.getIfUnique();
		if (details == null) {
			throw new IllegalStateException("Queue '" + queueName + "' has backend redis, but the application has "
					+ "no Redis connection: add spring-boot-starter-data-redis (its LettuceConnectionFactory and "
					+ "spring.data.redis.* properties), or a DataRedisConnectionDetails bean, as @ServiceConnection "
					+ "and Docker Compose define");
		}
		AbstractRedisClient client = ConnectionDetailsRedisClient.create(details);
		logger.info(LogMessage.format("Work queues with backend redis connect through %s",
				details.getClass().getSimpleName()));
		this.ownedClient = client;
		return client;
	}

	/**
	 * Shuts down the client this backend made, if it made one: destroyed after this
	 * backend stopped, so after its queues were shut down.
	 */
	@Override
	public synchronized void destroy() {
		if (this.ownedClient != null) {
			this.ownedClient.shutdown();
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
