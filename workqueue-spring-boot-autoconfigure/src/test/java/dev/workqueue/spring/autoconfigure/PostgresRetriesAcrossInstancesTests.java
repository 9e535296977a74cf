package dev.workqueue.spring.autoconfigure;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.postgres.PostgresRateLimiters;

/**
 * {@link RetriesAcrossInstancesContract} on PostgreSQL: the instances share one table.
 * Needs the {@link LocalPostgres}.
 */
class PostgresRetriesAcrossInstancesTests extends RetriesAcrossInstancesContract {

	private final String table = LocalPostgres.uniqueTable();

	@BeforeAll
	static void postgresAnswers() {
		LocalPostgres.assumeAnswers();
	}

	@AfterEach
	void dropTable() {
		LocalPostgres.dropTable(this.table);
	}

	@Override
	protected ApplicationContextRunner onStore(ApplicationContextRunner runner) {
		return runner
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, WorkQueueAutoConfiguration.class))
			.withPropertyValues(LocalPostgres.dataSourceProperties())
			.withPropertyValues("workqueue.postgres.table=" + this.table, "workqueue.queues.orders.backend=postgres");
	}

	@Override
	protected int failures(String item) {
		return PostgresRateLimiters
			.builder(new DriverManagerDataSource(LocalPostgres.URL, LocalPostgres.USER, ""), ItemCodec.strings())
			.name("orders")
			.table(this.table)
			.attempts()
			.failures(item);
	}

}
