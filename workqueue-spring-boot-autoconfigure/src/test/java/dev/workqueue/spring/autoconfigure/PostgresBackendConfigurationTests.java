package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import dev.workqueue.postgres.PostgresWorkQueues;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The postgres backend's configuration without a database: when it is defined, what it
 * says when something is missing, and that its rules are workqueue-postgres's.
 */
class PostgresBackendConfigurationTests {

	private static final String BACKEND = QueueBackend.beanName(WorkQueueProperties.Backend.POSTGRES);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WorkQueueAutoConfiguration.class));

	@Test
	void withoutWorkqueuePostgresAPostgresQueueFailsStartUpNamingWhatToAdd() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("dev.workqueue.postgres"))
			.withPropertyValues("workqueue.queues.orders.backend=postgres")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("Queue 'orders' has backend postgres, but workqueue-postgres or Spring Boot's JDBC "
						+ "support is not on the class path: add dev.workqueue:workqueue-postgres, "
						+ "spring-boot-starter-jdbc and the PostgreSQL driver"));
	}

	@Test
	void withoutSpringBootsJdbcSupportAPostgresQueueFailsStartUpNamingWhatToAdd() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.jdbc"))
			.withPropertyValues("workqueue.defaults.backend=postgres", "workqueue.queues.orders.concurrency=1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("Queue 'orders' has backend postgres")
				.hasMessageContaining("add dev.workqueue:workqueue-postgres, spring-boot-starter-jdbc"));
	}

	@Test
	void withoutAPostgresQueueNothingOfTheBackendIsDefinedAndNoDatabaseIsNeeded() {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.backend=memory")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PostgresBackend.class)
				.doesNotHaveBean(PostgresSchemaInitializer.class));
	}

	@Test
	void initializeSchemaNeverDefinesNoSchemaInitializer() {
		this.contextRunner.withInitializer(PostgresBackendConfigurationTests::lazily)
			.withPropertyValues("workqueue.queues.orders.backend=postgres",
					"workqueue.postgres.initialize-schema=never")
			.run((context) -> {
				assertThat(context.getBeanFactory().containsBeanDefinition(BACKEND)).isTrue();
				assertThat(context.getBeanFactory().getBeanNamesForType(PostgresSchemaInitializer.class, true, false))
					.isEmpty();
				assertThat(context.getBeanFactory().getBeanDefinition("orders").getDependsOn())
					.containsExactly(BACKEND);
			});
	}

	/** Creates no bean before it is asked for: the definitions alone are looked at. */
	private static void lazily(ConfigurableApplicationContext context) {
		context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor());
	}

	@Test
	void aPostgresQueueWithoutADataSourceFailsStartUpSayingWhatToAdd() {
		this.contextRunner
			.withPropertyValues("workqueue.queues.orders.backend=postgres",
					"workqueue.postgres.initialize-schema=never")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("Queue 'orders' has backend postgres, but the application has no DataSource: add "
						+ "spring-boot-starter-jdbc with spring.datasource.* properties, or define a DataSource bean"));
	}

	@Test
	void initializeSchemaOfAPostgresQueueFromTheDefaultsWithoutADataSourceFailsStartUpNamingTheKey() {
		this.contextRunner
			.withPropertyValues("workqueue.defaults.backend=postgres", "workqueue.queues.orders.concurrency=1")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("Error creating bean with name 'workQueuePostgresSchemaInitializer'")
				.rootCause()
				.hasMessageStartingWith("workqueue.postgres.initialize-schema is always, but the application has no "
						+ "single DataSource"));
	}

	@ParameterizedTest
	@MethodSource("tables")
	void theTableRuleIsWorkqueuePostgresOwn(String table) {
		WorkQueueProperties properties = new WorkQueueProperties();
		properties.getPostgres().setTable(table);
		boolean accepted = WorkQueuePropertiesValidator.validate(properties).isEmpty();
		if (accepted) {
			assertThat(PostgresWorkQueues.schema(table)).contains(table);
		}
		else {
			assertThatIllegalArgumentException().isThrownBy(() -> PostgresWorkQueues.schema(table));
		}
	}

	static Stream<String> tables() {
		return Stream.of("workqueue_item", "Jobs", "_q", "q$1", "jobs.workqueue_item", "s".repeat(63) + ".t",
				"s".repeat(64) + ".t", "q".repeat(56), "q".repeat(57), "", "1q", "q-1", "a.b.c", "q;drop table x",
				"\"quoted\"", "jobs.", ".q", "é", "q$$x", "jobs$$.q");
	}

	@Test
	void theFloorsAreWorkqueuePostgresOwn() {
		WorkQueueProperties properties = new WorkQueueProperties();
		properties.getPostgres().setLease(PostgresWorkQueues.Builder.MIN_LEASE);
		properties.getPostgres().setPollInterval(PostgresWorkQueues.Builder.MIN_POLL_INTERVAL);
		assertThat(WorkQueuePropertiesValidator.validate(properties)).isEmpty();
		properties.getPostgres().setLease(PostgresWorkQueues.Builder.MIN_LEASE.minus(Duration.ofMillis(1)));
		properties.getPostgres()
			.setPollInterval(PostgresWorkQueues.Builder.MIN_POLL_INTERVAL.minus(Duration.ofMillis(1)));
		assertThat(WorkQueuePropertiesValidator.validate(properties)).hasSize(2);
	}

	@Test
	void theDefaultsAreWorkqueuePostgresOwn() {
		WorkQueueProperties.Postgres postgres = new WorkQueueProperties().getPostgres();
		assertThat(postgres.getTable()).isEqualTo(PostgresWorkQueues.DEFAULT_TABLE);
		assertThat(postgres.getLease()).isEqualTo(Duration.ofSeconds(30));
		assertThat(postgres.getPollInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(postgres.getInitializeSchema()).isEqualTo(WorkQueueProperties.SchemaInitialization.ALWAYS);
		assertThat(postgres.isListen()).isTrue();
		assertThat(postgres.isSynchronousCommit()).isTrue();
	}

	@Test
	void theSchemaInitializerRunsWorkqueuePostgresTemplate() {
		assertThat(getClass().getClassLoader()
			.getResource(PostgresSchemaInitializer.SCHEMA_LOCATION.substring("classpath:".length())))
			.as("the template's location")
			.isNotNull();
	}

	@Test
	void aMissingTableIsReportedWithBothWaysToCreateIt() {
		PostgresQueueTableMissingException failure = new PostgresQueueTableMissingException("jobs.queue",
				List.of("jobs.queue", "jobs.queue_token", "jobs.queue_limit"));
		FailureAnalysis analysis = new PostgresQueueTableMissingFailureAnalyzer()
			.analyze(new IllegalStateException("wrapped", failure));
		assertThat(analysis.getDescription()).isEqualTo("The work queues with backend postgres need the table "
				+ "'jobs.queue', which does not exist in the application's database after its database "
				+ "initialization (not found: jobs.queue, jobs.queue_token, jobs.queue_limit).");
		assertThat(analysis.getAction()).contains("workqueue.postgres.initialize-schema=always")
			.contains("PostgresWorkQueues.schema(\"jobs.queue\")")
			.contains("Flyway, Liquibase");
		assertThat(analysis.getCause()).isSameAs(failure);
	}

}
