package dev.workqueue.postgres;

import java.time.Duration;
import java.util.List;

import dev.workqueue.DelayingQueue;
import dev.workqueue.shared.SharedStore;

/**
 * Opens, in a child JVM of core's process harness, a handle of a
 * {@link PostgresSharedQueueContractTests} queue, on a pool of its own. Arguments: the
 * JDBC URL, the queue table.
 */
public final class PostgresProcessOpener implements SharedStore.ProcessOpener {

	@Override
	public DelayingQueue<String> open(List<String> arguments, Duration lease) {
		return PostgresSharedQueueContractTests.Store
			.handle(PostgresSharedQueueContractTests.Store.pool(arguments.get(0)), arguments.get(1), lease);
	}

}
