package dev.workqueue.postgres;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only where the tests' PostgreSQL answers ({@link PostgresDatabase}).
 * Where it does not, the class is skipped with one loud line per run, or fails when the
 * PostgreSQL tests are required ({@code -Dworkqueue.test.postgres.required=true} or
 * {@code WORKQUEUE_POSTGRES_REQUIRED=true}, as CI sets).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresPostgres.Condition.class)
@interface RequiresPostgres {

	/** The condition behind the annotation. */
	final class Condition implements ExecutionCondition {

		private static final AtomicBoolean warned = new AtomicBoolean();

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			if (PostgresDatabase.available()) {
				return ConditionEvaluationResult.enabled("PostgreSQL at " + PostgresDatabase.URL);
			}
			String why = "No PostgreSQL: nothing answers at " + PostgresDatabase.URL;
			if (PostgresDatabase.required()) {
				throw new IllegalStateException(why + ", and the PostgreSQL tests are required ("
						+ PostgresDatabase.REQUIRED_PROPERTY + " / WORKQUEUE_POSTGRES_REQUIRED)");
			}
			if (warned.compareAndSet(false, true)) {
				System.err.println("*** SKIPPING THE POSTGRESQL TESTS: " + why + " ***");
			}
			return ConditionEvaluationResult.disabled(why);
		}

	}

}
