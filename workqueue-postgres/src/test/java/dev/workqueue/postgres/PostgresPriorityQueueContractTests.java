package dev.workqueue.postgres;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;

import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueueContract;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;

/**
 * Core's {@link PriorityQueueContract}, the priority rules every backend keeps, on
 * PostgreSQL: each test's handles share one queue in a table of the test's own, on the
 * contract's clock.
 */
@RequiresPostgres
class PostgresPriorityQueueContractTests extends PriorityQueueContract {

	private final EngineFixture fixture = new EngineFixture();

	@Override
	protected PriorityQueue<String> newQueue(Duration starvationTimeout) {
		PostgresWorkQueues.Builder<String> builder = this.fixture.builder("contract").clock(this.clock);
		if (starvationTimeout != null) {
			builder.starvationTimeout(starvationTimeout);
		}
		return this.fixture.track(builder
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
	}

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

}
