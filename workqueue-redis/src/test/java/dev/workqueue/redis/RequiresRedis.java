package dev.workqueue.redis;

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
 * Runs a test class only where a Redis can be had ({@link RedisServers#shared()}). Where
 * none can, the class is skipped with one loud line per run, or fails when the Redis
 * tests are required ({@code -Dworkqueue.test.redis.required=true} or
 * {@code WORKQUEUE_REDIS_REQUIRED=true}, as CI sets).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresRedis.Condition.class)
@interface RequiresRedis {

	/** The condition behind the annotation. */
	final class Condition implements ExecutionCondition {

		private static final AtomicBoolean warned = new AtomicBoolean();

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			if (RedisServers.shared() != null) {
				return ConditionEvaluationResult.enabled("Redis at " + RedisServers.shared());
			}
			String why = "No Redis: nothing answers on 127.0.0.1:6379 and redis-server is not on PATH";
			if (RedisServers.required()) {
				throw new IllegalStateException(why + ", and the Redis tests are required ("
						+ RedisServers.REQUIRED_PROPERTY + " / WORKQUEUE_REDIS_REQUIRED)");
			}
			if (warned.compareAndSet(false, true)) {
				System.err.println("*** SKIPPING THE REDIS TESTS: " + why + " ***");
			}
			return ConditionEvaluationResult.disabled(why);
		}

	}

}
