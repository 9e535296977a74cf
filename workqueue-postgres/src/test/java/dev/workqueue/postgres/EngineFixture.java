package dev.workqueue.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.awaitility.Awaitility;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.spi.SharedWorkQueue;

/**
 * A test's table ({@link PostgresFixture}) and the handles it built on it: poll-only and
 * without the table keeper, so that the engine's tests need neither {@code LISTEN} nor
 * {@code VACUUM}. {@link #close()} shuts every handle down, hands back what a test left
 * in hand, waits for each handle's lease keeper to end, then drops the table.
 */
final class EngineFixture implements AutoCloseable {

	private final PostgresFixture table = new PostgresFixture();

	private final List<WorkQueue<?>> opened = new ArrayList<>();

	/** A builder of string queues named {@code name} on the test's table. */
	PostgresWorkQueues.Builder<String> builder(String name) {
		return this.table.builder(name).listen(false).vacuum(false);
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
			.vacuum(false);
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
	static PostgresWorkQueue<?> handle(WorkQueue<?> queue) {
		return (PostgresWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow();
	}

	@Override
	public void close() {
		try {
			for (WorkQueue<?> queue : this.opened) {
				queue.shutDown();
			}
			for (WorkQueue<?> queue : this.opened) {
				PostgresWorkQueue<?> handle = handle(queue);
				handle.handBack();
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> handle.keeper().stopped());
			}
		}
		finally {
			this.table.close();
		}
	}

}
