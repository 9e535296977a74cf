package dev.workqueue.postgres;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueueContract;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.shared.SplitQueues;
import dev.workqueue.time.FakeClock;

/**
 * Core's {@link PriorityQueueContract}, the priority rules every backend keeps, on
 * PostgreSQL: each test's handles share one queue in a table of the test's own, on the
 * contract's clock. {@link TwoHandles} runs the same rules with every add made through
 * one handle and every take and done through another.
 */
@RequiresPostgres
class PostgresPriorityQueueContractTests extends PriorityQueueContract {

	private final EngineFixture fixture = new EngineFixture();

	@Override
	protected PriorityQueue<String> newQueue(Duration starvationTimeout) {
		return build(this.fixture, this.clock, starvationTimeout);
	}

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private static PriorityQueue<String> build(EngineFixture fixture, FakeClock clock, Duration starvationTimeout) {
		PostgresWorkQueues.Builder<String> builder = fixture.builder("contract").clock(clock);
		if (starvationTimeout != null) {
			builder.starvationTimeout(starvationTimeout);
		}
		return fixture.track(builder
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
	}

	/**
	 * The contract through two handles sharing the queue: adds on one, takes on the
	 * other.
	 */
	@Nested
	@RequiresPostgres
	class TwoHandles extends PriorityQueueContract {

		private final EngineFixture fixture = new EngineFixture();

		@Override
		protected PriorityQueue<String> newQueue(Duration starvationTimeout) {
			return SplitQueues.priority(build(this.fixture, this.clock, starvationTimeout),
					build(this.fixture, this.clock, starvationTimeout));
		}

		@AfterEach
		void dropTable() {
			this.fixture.close();
		}

	}

}
