package dev.workqueue;

import java.time.Duration;
import java.util.concurrent.Callable;

import org.awaitility.core.ConditionFactory;

import static org.awaitility.Awaitility.await;

/**
 * Awaitility set up for these tests: checks at once and then every millisecond, for at
 * most ten seconds (stress tests pass a longer deadline).
 */
final class Await {

	private Await() {
	}

	static ConditionFactory atMost(Duration deadline) {
		return await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(deadline);
	}

	static void until(Callable<Boolean> condition) {
		atMost(Duration.ofSeconds(10)).until(condition);
	}

}
