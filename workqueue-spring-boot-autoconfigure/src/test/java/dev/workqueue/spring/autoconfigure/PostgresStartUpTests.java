package dev.workqueue.spring.autoconfigure;

import java.sql.Connection;
import java.util.List;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import dev.workqueue.spring.diagnostics.RecordingFailureAnalysisReporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The postgres backend at start-up, on the real database: a table still missing after the
 * application's database initialization fails the start-up naming it, and the
 * {@code LISTEN} connection is opened outside the pool. Needs the {@link LocalPostgres}.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostgresStartUpTests {

	private final String table = LocalPostgres.uniqueTable();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, WorkQueueAutoConfiguration.class))
		.withPropertyValues(LocalPostgres.dataSourceProperties())
		.withPropertyValues("workqueue.postgres.table=" + this.table, "workqueue.queues.orders.backend=postgres");

	@BeforeAll
	static void postgresAnswers() {
		LocalPostgres.assumeAnswers();
	}

	@AfterEach
	void dropTable() {
		LocalPostgres.dropTable(this.table);
	}

	@Test
	void aTableStillMissingWithInitializeSchemaNeverFailsStartUpNamingIt() {
		this.contextRunner.withPropertyValues("workqueue.postgres.initialize-schema=never")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(PostgresQueueTableMissingException.class)
				.hasMessage("The work queue table '" + this.table + "' is missing from the application's database "
						+ "(not found: " + this.table + ", " + this.table + "_token, " + this.table + "_lease, "
						+ this.table + "_limit)"));
	}

	@Test
	void aTableWithoutItsCompanionsFailsStartUpNamingWhatIsMissing() {
		LocalPostgres.execute("CREATE TABLE " + this.table + " (queue text)");
		this.contextRunner.withPropertyValues("workqueue.postgres.initialize-schema=never")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(PostgresQueueTableMissingException.class)
				.satisfies((ex) -> assertThat(((PostgresQueueTableMissingException) ex).getMissing())
					.containsExactly(this.table + "_token", this.table + "_lease", this.table + "_limit")));
	}

	@Test
	void aMissingTableIsReportedByItsFailureAnalysis(CapturedOutput output) {
		SpringApplication application = new SpringApplication(DatabaseApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		List<FailureAnalysis> reports = RecordingFailureAnalysisReporter.reportedWhile(() -> assertThatException()
			.isThrownBy(() -> application.run("--spring.datasource.url=" + LocalPostgres.URL,
					"--spring.datasource.username=" + LocalPostgres.USER, "--workqueue.postgres.table=" + this.table,
					"--workqueue.postgres.initialize-schema=never", "--workqueue.queues.orders.backend=postgres",
					"--spring.main.banner-mode=off", RecordingFailureAnalysisReporter.SILENCE_LOGGING_REPORTER)));
		assertThat(reports).singleElement().satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains("need the table '" + this.table + "'");
			assertThat(analysis.getAction()).contains("PostgresWorkQueues.schema(\"" + this.table + "\")");
		});
		assertThat(output).doesNotContain("APPLICATION FAILED TO START");
	}

	@Test
	void theListenConnectionIsOpenedOutsideThePoolFromBootsConnectionDetails() throws Exception {
		this.contextRunner.withPropertyValues("workqueue.queues.orders.backend=memory").run((context) -> {
			JdbcConnectionDetails details = context.getBean(JdbcConnectionDetails.class);
			DataSource pool = context.getBean(DataSource.class);
			try (Connection listen = new DriverManagerConnections(details).get();
					Connection pooled = pool.getConnection()) {
				assertThat(listen.getAutoCommit()).isTrue();
				assertThat(listen.isWrapperFor(pooled.getClass())).isFalse();
				assertThat(listen.getClass().getName()).startsWith("org.postgresql");
				assertThat(pooled.getClass().getName()).startsWith("com.zaxxer.hikari");
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, WorkQueueAutoConfiguration.class })
	static class DatabaseApplication {

	}

}
