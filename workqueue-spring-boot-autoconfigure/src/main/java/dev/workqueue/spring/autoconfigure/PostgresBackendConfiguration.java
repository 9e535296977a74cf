package dev.workqueue.spring.autoconfigure;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import dev.workqueue.postgres.PostgresWorkQueues;
import dev.workqueue.spring.PostgresWorkQueueCustomizer;

/**
 * The postgres backend, when workqueue-postgres, Spring JDBC and Spring Boot's JDBC
 * support are on the class path and a queue has backend {@code postgres}.
 * <p>
 * Ordering with the application's own database initialization uses Spring Boot's: the
 * backend {@link DependsOnDatabaseInitialization depends on database initialization}, so
 * it is created after Flyway, Liquibase and {@code spring.sql.init} scripts have run, and
 * each postgres queue bean depends on the backend; with
 * {@code workqueue.postgres.initialize-schema=always} the table is created by a database
 * initializer of its own ({@link PostgresSchemaInitializer}), which Boot runs after the
 * migrations and before the backend.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ PostgresWorkQueues.class, TransactionAwareDataSourceProxy.class, JdbcConnectionDetails.class,
		DependsOnDatabaseInitialization.class })
@Conditional(OnPostgresQueuesCondition.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
@ImportRuntimeHints(PostgresBackendConfiguration.SchemaRuntimeHints.class)
class PostgresBackendConfiguration {

	@Bean(PostgresBackend.BEAN_NAME)
	@DependsOnDatabaseInitialization
	PostgresBackend workQueuePostgresBackend(WorkQueueProperties properties,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<WorkQueueMetricsFactory> metrics,
			ObjectProvider<PostgresWorkQueueCustomizer> customizers) {
		return new PostgresBackend(properties.getPostgres(), beanFactory, metrics, customizers);
	}

	@Bean
	@ConditionalOnProperty(name = "workqueue.postgres.initialize-schema", havingValue = "always", matchIfMissing = true)
	PostgresSchemaInitializer workQueuePostgresSchemaInitializer(ObjectProvider<DataSource> dataSource,
			WorkQueueProperties properties) {
		DataSource unique = dataSource.getIfUnique();
		if (unique == null) {
			throw new IllegalStateException("workqueue.postgres.initialize-schema is always, but the application has "
					+ "no single DataSource to create the work queue table in: add spring-boot-starter-jdbc with "
					+ "spring.datasource.* properties, or define a DataSource bean");
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
