package dev.workqueue.spring;

import dev.workqueue.postgres.PostgresWorkQueues;

/**
 * Callback to customize each queue the starter builds with backend {@code postgres},
 * before it is built: its poll interval, the source of its {@code LISTEN} connection, its
 * metrics hook, and so on. The starter has already set the name, table, lease, clock,
 * metrics hook, the {@code listen}, {@code poll-interval} and {@code synchronous-commit}
 * options, the transaction-aware {@code DataSource} of adds and the plain one of the
 * workers.
 * <p>
 * Every {@code PostgresWorkQueueCustomizer} bean is called for every postgres queue, in
 * {@link org.springframework.core.Ordered order}. Memory queues are customized by
 * {@link WorkQueueCustomizer} and redis queues by {@link RedisWorkQueueCustomizer}
 * instead, and queue beans the application defines itself are not customized.
 */
@FunctionalInterface
public interface PostgresWorkQueueCustomizer {

	/**
	 * Customizes the builder of the postgres queue named {@code queueName}.
	 * @param queueName the queue's name, also its bean name
	 * @param builder the builder to customize
	 */
	void customize(String queueName, PostgresWorkQueues.Builder<Object> builder);

}
