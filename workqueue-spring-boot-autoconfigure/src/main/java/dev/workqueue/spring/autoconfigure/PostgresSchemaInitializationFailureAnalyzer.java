package dev.workqueue.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link PostgresSchemaInitializationException} as a start-up failure: what
 * went wrong first (the database out of reach, a missing privilege), then which table the
 * starter was creating and what to do.
 */
class PostgresSchemaInitializationFailureAnalyzer
		extends AbstractFailureAnalyzer<PostgresSchemaInitializationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PostgresSchemaInitializationException cause) {
		return new FailureAnalysis(
				cause.getReason() + "\n\nThe work queues with backend postgres could not create their table '"
						+ cause.getTable() + "' at start-up (workqueue.postgres.initialize-schema=always).",
				"Check that the database of the application's DataSource (spring.datasource.url) is running, "
						+ "reachable and lets its user create the table; or create the table with the application's "
						+ "migrations (PostgresWorkQueues.schema(\"" + cause.getTable() + "\")) and set "
						+ "workqueue.postgres.initialize-schema=never.",
				cause);
	}

}
