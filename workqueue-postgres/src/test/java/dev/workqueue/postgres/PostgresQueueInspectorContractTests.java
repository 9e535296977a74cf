package dev.workqueue.postgres;

import java.time.Duration;
import java.util.function.Function;

import org.junit.jupiter.api.Nested;

import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.shared.QueueInspectorContract;
import dev.workqueue.shared.QueueInspectorContract.Handles;

/**
 * Core's {@link QueueInspectorContract}, the rules of a queue's inspector on every
 * backend, on PostgreSQL: each test's queue lives in a {@link PostgresFixture}'s table of
 * its own, and each handle opened is another instance of it on the tests' pool, hearing
 * notices as a default handle does. Run on a delaying queue and a priority queue.
 */
@RequiresPostgres
class PostgresQueueInspectorContractTests {

	private static final Duration RETENTION = Duration.ofHours(2);

	@Nested
	class Plain extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles((table) -> table.builder("inspected").givenUp(keepGivenUp, RETENTION).buildDelayingQueue());
		}

	}

	@Nested
	class Priority extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles((table) -> table.builder("inspected")
				.givenUp(keepGivenUp, RETENTION)
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		}

	}

	private static Handles handles(Function<PostgresFixture, WorkQueue<String>> open) {
		PostgresFixture table = new PostgresFixture();
		return new Handles() {

			@Override
			public WorkQueue<String> open() {
				return open.apply(table);
			}

			@Override
			public void close() {
				table.close();
			}

		};
	}

}
