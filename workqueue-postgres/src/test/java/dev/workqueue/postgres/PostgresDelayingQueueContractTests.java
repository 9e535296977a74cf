package dev.workqueue.postgres;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import dev.workqueue.DelayingQueue;
import dev.workqueue.DelayingQueueContract;
import dev.workqueue.shared.SplitQueues;

/**
 * Core's {@link DelayingQueueContract}, the rules every backend keeps, on PostgreSQL:
 * each test's handles share one queue in a table of the test's own, on the contract's
 * clock. {@link TwoHandles} runs the same rules with every add made through one handle
 * and every take and done through another.
 */
@RequiresPostgres
class PostgresDelayingQueueContractTests extends DelayingQueueContract {

	private final EngineFixture fixture = new EngineFixture();

	@Override
	protected DelayingQueue<String> newQueue() {
		return this.fixture.track(this.fixture.builder("contract").clock(this.clock).buildDelayingQueue());
	}

	@Override
	protected boolean drainsAfterShutDown() {
		// Shut down, a handle takes nothing more: what is queued stays for the others.
		return false;
	}

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	/**
	 * The contract through two handles sharing the queue: adds on one, takes on the
	 * other.
	 */
	@Nested
	@RequiresPostgres
	class TwoHandles extends DelayingQueueContract {

		private final EngineFixture fixture = new EngineFixture();

		@Override
		protected DelayingQueue<String> newQueue() {
			return SplitQueues.delaying(
					this.fixture.track(this.fixture.builder("contract").clock(this.clock).buildDelayingQueue()),
					this.fixture.track(this.fixture.builder("contract").clock(this.clock).buildDelayingQueue()));
		}

		@Override
		protected boolean drainsAfterShutDown() {
			return false;
		}

		@AfterEach
		void dropTable() {
			this.fixture.close();
		}

	}

}
