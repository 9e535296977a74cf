package dev.workqueue.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link PostgresQueueTableMissingException} as a start-up failure: which table
 * is missing, and the two ways to create it.
 */
class PostgresQueueTableMissingFailureAnalyzer extends AbstractFailureAnalyzer<PostgresQueueTableMissingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PostgresQueueTableMissingException cause) {
		String table = cause.getTable();
		return new FailureAnalysis(
				"The work queues with backend postgres need the table '" + table + "', which does not exist in the "
						+ "application's database after its database initialization (not found: "
						+ String.join(", ", cause.getMissing()) + ").",
				"Let the starter create it at start-up (workqueue.postgres.initialize-schema=always, the default), "
						+ "or add the script of PostgresWorkQueues.schema(\"" + table + "\") to the application's "
						+ "migrations (Flyway, Liquibase); it creates only what is missing.",
				cause);
	}

}
