package dev.workqueue.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.awaitility.Awaitility;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.store.SharedStoreQueue;

/**
 * A test's table ({@link PostgresFixture}) and the handles it built on it: poll-only and
 * never vacuuming ({@link VacuumPolicy#NEVER}), so that the engine's tests need neither
 * {@code LISTEN} nor {@code VACUUM} (the default path has tests of its own).
 * {@link #close()} shuts every handle down, hands back what a test left in hand, waits
 * for each handle's lease keeper to end, then drops the table.
 */
final class EngineFixture implements AutoCloseable {

	private final PostgresFixture table = new PostgresFixture();

	private final List<WorkQueue<?>> opened = new ArrayList<>();

	/** A builder of string queues named {@code name} on the test's table. */
	PostgresWorkQueues.Builder<String> builder(String name) {
		return this.table.builder(name).listen(false).vacuum(VacuumPolicy.NEVER);
	}

	/**
	 * A builder of string queues named {@code name} whose adds take their connections
	 * from {@code adds} (a caller's transaction), and everything else from the pool.
	 */
	PostgresWorkQueues.Builder<String> builder(String name, DataSource adds) {
		return PostgresWorkQueues.builder(adds, ItemCodec.strings())
			.table(table())
			.name(name)
			.workerDataSource(this.table.dataSource())
			.listen(false)
			.vacuum(VacuumPolicy.NEVER);
	}

	<Q extends WorkQueue<?>> Q track(Q queue) {
		this.opened.add(queue);
		return queue;
	}

	String table() {
		return this.table.table();
	}

	PostgresFixture tableFixture() {
		return this.table;
	}

	/** The handle behind a queue built here. */
	static SharedStoreQueue<?, ?> handle(WorkQueue<?> queue) {
		return (SharedStoreQueue<?, ?>) queue.capability(SharedWorkQueue.class).orElseThrow();
	}

	/** The adds and reads of the handle behind a queue built here, with its parts. */
	static HandleStatements statements(WorkQueue<?> queue) {
		return (HandleStatements) handle(queue).driver();
	}

	@Override
	public void close() {
		try {
			for (WorkQueue<?> queue : this.opened) {
				queue.shutDown();
			}
			for (WorkQueue<?> queue : this.opened) {
				handle(queue).handBack();
				LeaseKeeper keeper = statements(queue).keeper();
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(keeper::stopped);
			}
		}
		finally {
			this.table.close();
		}
	}

}
