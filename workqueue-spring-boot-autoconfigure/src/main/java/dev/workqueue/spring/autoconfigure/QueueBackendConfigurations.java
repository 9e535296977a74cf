package dev.workqueue.spring.autoconfigure;

import javax.sql.DataSource;

import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import dev.workqueue.postgres.PostgresWorkQueues;
import dev.workqueue.redis.RedisWorkQueues;
import dev.workqueue.spring.PostgresWorkQueueCustomizer;
import dev.workqueue.spring.RedisWorkQueueCustomizer;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.time.Clock;

/**
 * The backends' configurations, one per backend, as Spring Boot's
 * {@code DataSourceConfiguration} has one per connection pool; imported by
 * {@link WorkQueueAutoConfiguration}. Each is defined when its classes are on the class
 * path and a queue has its backend ({@link ConditionalOnQueueBackend}), and defines that
 * backend's {@link QueueBackend} bean, named as {@link QueueBackend#beanName} says, which
 * is how {@link WorkQueueFactory} finds it and each queue bean depends on it.
 */
final class QueueBackendConfigurations {

	private QueueBackendConfigurations() {
	}

	/**
	 * The memory backend; its classes are core's, always there.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnQueueBackend(WorkQueueProperties.Backend.MEMORY)
	static class Memory {

		@Bean
		MemoryBackend workQueueMemoryBackend(ObjectProvider<Clock> clock, BeanFactory beanFactory,
				ObjectProvider<WorkQueueMetricsFactory> metrics, ObjectProvider<WorkQueueCustomizer> customizers) {
			return new MemoryBackend(clock.getIfAvailable(Clock::system), beanFactory, metrics, customizers);
		}

	}

	/**
	 * The redis backend, when workqueue-redis, Lettuce and Spring Boot's Redis support
	 * are on the class path. It connects only when its first queue is built.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RedisWorkQueues.class, RedisClient.class, LettuceConnectionFactory.class,
			DataRedisConnectionDetails.class })
	@ConditionalOnQueueBackend(WorkQueueProperties.Backend.REDIS)
	static class Redis {

		@Bean
		RedisBackend workQueueRedisBackend(WorkQueueProperties properties, ConfigurableListableBeanFactory beanFactory,
				ObjectProvider<WorkQueueMetricsFactory> metrics, ObjectProvider<RedisWorkQueueCustomizer> customizers) {
			return new RedisBackend(properties.getRedis(), beanFactory, metrics, customizers);
		}

	}

	/**
	 * The postgres backend, when workqueue-postgres, Spring JDBC and Spring Boot's JDBC
	 * support are on the class path.
	 * <p>
	 * Ordering with the application's own database initialization uses Spring Boot's: the
	 * backend {@link DependsOnDatabaseInitialization depends on database initialization},
	 * so it is created after Flyway, Liquibase and {@code spring.sql.init} scripts have
	 * run, and each postgres queue bean depends on the backend; with
	 * {@code workqueue.postgres.initialize-schema=always} the table is created by a
	 * database initializer of its own ({@link PostgresSchemaInitializer}), which Boot
	 * runs after the migrations and before the backend.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ PostgresWorkQueues.class, TransactionAwareDataSourceProxy.class, JdbcConnectionDetails.class,
			DependsOnDatabaseInitialization.class })
	@ConditionalOnQueueBackend(WorkQueueProperties.Backend.POSTGRES)
	@Import(DatabaseInitializationDependencyConfigurer.class)
	@ImportRuntimeHints(Postgres.SchemaRuntimeHints.class)
	static class Postgres {

		@Bean
		@DependsOnDatabaseInitialization
		PostgresBackend workQueuePostgresBackend(WorkQueueProperties properties,
				ConfigurableListableBeanFactory beanFactory, ObjectProvider<WorkQueueMetricsFactory> metrics,
				ObjectProvider<PostgresWorkQueueCustomizer> customizers) {
			return new PostgresBackend(properties.getPostgres(), beanFactory, metrics, customizers);
		}

		@Bean
		@ConditionalOnProperty(name = "workqueue.postgres.initialize-schema", havingValue = "always",
				matchIfMissing = true)
		PostgresSchemaInitializer workQueuePostgresSchemaInitializer(ObjectProvider<DataSource> dataSource,
				WorkQueueProperties properties) {
			DataSource unique = dataSource.getIfUnique();
			if (unique == null) {
				throw new IllegalStateException("workqueue.postgres.initialize-schema is always, but the application "
						+ "has no single DataSource to create the work queue table in: add spring-boot-starter-jdbc "
						+ "with spring.datasource.* properties, or define a DataSource bean");
			}
			return new PostgresSchemaInitializer(unique, properties.getPostgres().getTable());
		}

		/**
		 * The schema template that workqueue-postgres reads from the class path.
		 */
		static class SchemaRuntimeHints implements RuntimeHintsRegistrar {

			@Override
			public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
				hints.resources().registerPattern("dev/workqueue/postgres/*.sql");
			}

		}

	}

}
