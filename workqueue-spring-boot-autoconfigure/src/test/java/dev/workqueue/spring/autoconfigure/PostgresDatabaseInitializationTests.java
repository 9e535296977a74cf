package dev.workqueue.spring.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.jdbc.datasource.init.ScriptUtils;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.postgres.PostgresWorkQueues;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The postgres queues are created after the application's own database initialization, as
 * Spring Boot orders it (Flyway, Liquibase and {@code spring.sql.init} alike), and the
 * starter's own schema run is one of those initializers. Each test has an application
 * bean that needs a postgres queue in its constructor and is defined before everything
 * else, so that only the ordering keeps the queue from being built before its table
 * exists. Needs the {@link LocalPostgres}.
 */
class PostgresDatabaseInitializationTests {

	private final String table = LocalPostgres.uniqueTable();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceInitializationAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withPropertyValues(LocalPostgres.dataSourceProperties())
		.withPropertyValues("workqueue.postgres.table=" + this.table, "workqueue.queues.orders.backend=postgres")
		.withBean(QueueUser.class);

	@BeforeAll
	static void postgresAnswers() {
		LocalPostgres.assumeAnswers();
	}

	@AfterEach
	void dropTable() {
		LocalPostgres.dropTable(this.table);
	}

	@Test
	void aTableMadeByTheApplicationsSqlInitScriptExistsBeforeTheQueuesAreBuilt(@TempDir Path scripts)
			throws IOException {
		Path script = Files.writeString(scripts.resolve("schema.sql"), PostgresWorkQueues.schema(this.table));
		this.contextRunner
			.withPropertyValues("workqueue.postgres.initialize-schema=never", "spring.sql.init.mode=always",
					"spring.sql.init.schema-locations=" + script.toUri(),
					// The script is meant for one Statement.execute, as a migration runs
					// it.
					"spring.sql.init.separator=" + ScriptUtils.EOF_STATEMENT_SEPARATOR)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueUser user = context.getBean(QueueUser.class);
				user.orders.add("a");
				assertThat(user.orders.size()).isOne();
			});
	}

	@Test
	void theStartersSchemaRunIsADatabaseInitializerThatRunsBeforeTheQueuesAreBuilt() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(LocalPostgres.exists(this.table)).isTrue();
			assertThat(LocalPostgres.exists(this.table + "_token")).isTrue();
			assertThat(LocalPostgres.exists(this.table + "_lease")).isTrue();
			assertThat(LocalPostgres.exists(this.table + "_limit")).isTrue();
			assertThat(context.getBean(PostgresSchemaInitializer.class).table()).isEqualTo(this.table);
			context.getBean(QueueUser.class).orders.add("a");
		});
	}

	@Test
	void anUnreachableDatabaseFailsStartUpSayingSoFirst() {
		int port = LocalPostgres.deadPort();
		this.contextRunner
			.withPropertyValues("spring.datasource.url=jdbc:postgresql://127.0.0.1:" + port + "/test",
					"spring.datasource.hikari.connection-timeout=250")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new PostgresSchemaInitializationFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).startsWith("Connection to 127.0.0.1:" + port + " refused")
					.contains("could not create their table '" + this.table + "' at start-up");
				assertThat(analysis.getAction()).contains("spring.datasource.url")
					.contains("workqueue.postgres.initialize-schema=never");
			});
		// Registered, so that Boot reports the failure with it (the analyzers of Boot's
		// own that need constructor arguments are left out here).
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, null, (type, name, failure) -> {
			})).anyMatch(PostgresSchemaInitializationFailureAnalyzer.class::isInstance);
	}

	@Test
	void theSchemaRunIsIdempotentAcrossRestarts() {
		this.contextRunner.run((first) -> first.getBean(QueueUser.class).orders.add("kept"));
		this.contextRunner.run((second) -> {
			assertThat(second).hasNotFailed();
			assertThat(second.getBean(QueueUser.class).orders.size()).isOne();
		});
	}

	/** Needs the queue as soon as it is created, as an application's service may. */
	static class QueueUser {

		final RateLimitingQueue<String> orders;

		QueueUser(@Qualifier("orders") RateLimitingQueue<String> orders) {
			this.orders = orders;
		}

	}

}
