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
import dev.workqueue.redis.RedisWorkQueues;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.time.Clock;

/**
 * The redis backend: builds the queues whose {@code backend} is {@code redis} with
 * workqueue-redis, on the Redis connection Spring Boot gives the application, with shared
 * rate limiters built from the same YAML sections as the memory backend's, and counts
 * failures in Redis so that {@code max-retries} holds across instances. Its given-up
 * items are kept in Redis, bounded by the queue's {@code given-up} settings.
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
 * {@link RedisWorkQueueCustomizer} bean in order, after its name, key prefix, lease,
 * given-up bound and metrics are set. An item type other than {@code String} needs an
 * {@link ItemCodec} bean named {@code <queue>ItemCodec}. The time is the Redis server's
 * unless a customizer gives the builder a clock: the application's {@link Clock} bean
 * times its memory queues only (contract §3), and the limiters take the queue builder's
 * clock.
 */
final class RedisBackend extends SharedQueuesLifecycle implements QueueBackend, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedisBackend.class);

	/** This backend's bean name, as {@link QueueBackend#beanName} makes it. */
	private static final String BEAN_NAME = QueueBackend.beanName(WorkQueueProperties.Backend.REDIS);

	/** The builder's own limiters, on its clock if a customizer gave one. */
	private static final QueueBuilderCalls<RedisWorkQueues.Builder<Object>, RedisWorkQueueCustomizer> CALLS = new QueueBuilderCalls<>(
			RedisWorkQueueCustomizer::customize, RedisWorkQueues.Builder::metrics,
			RedisWorkQueues.Builder::rateLimiters, RedisWorkQueues.Builder::starvationTimeout,
			RedisWorkQueues.Builder::buildPriorityQueue, RedisWorkQueues.Builder::buildRateLimitingQueue);

	private final String keyPrefix;

	private final Duration lease;

	private final ConfigurableListableBeanFactory beanFactory;

	private final ObjectProvider<WorkQueueMetricsFactory> metrics;

	private final ObjectProvider<RedisWorkQueueCustomizer> customizers;

	private @Nullable AbstractRedisClient client;

	private @Nullable AbstractRedisClient ownedClient;

	/**
	 * Creates the backend.
	 * @param redis the {@code workqueue.redis.*} properties
	 * @param beanFactory where to find the client
	 * @param metrics the metrics of each queue, if any
	 * @param customizers the customizers of the queue builders
	 */
	RedisBackend(WorkQueueProperties.Redis redis, ConfigurableListableBeanFactory beanFactory,
			ObjectProvider<WorkQueueMetricsFactory> metrics, ObjectProvider<RedisWorkQueueCustomizer> customizers) {
		this.keyPrefix = redis.getKeyPrefix();
		this.lease = redis.getLease();
		this.beanFactory = beanFactory;
		this.metrics = metrics;
		this.customizers = customizers;
	}

	@Override
	public synchronized BuiltQueue create(QueueSettings settings) {
		String name = settings.name();
		RedisWorkQueues.Builder<Object> queues = RedisWorkQueues
			.builder(client(name), QueueItemCodecs.of(this.beanFactory, name))
			.name(name)
			.keyPrefix(this.keyPrefix)
			.lease(this.lease)
			.givenUp(settings.givenUp().keep(), settings.givenUp().retention());
		return track(CALLS.build(settings, queues, this.metrics, this.customizers));
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
		this.beanFactory.registerDependentBean(bean.getBeanName(), BEAN_NAME);
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

}
