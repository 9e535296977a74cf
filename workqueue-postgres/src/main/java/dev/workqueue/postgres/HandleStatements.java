package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.postgres.AddGroup.Request;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.store.QueueDriver;
import dev.workqueue.store.ReadySignal;

/**
 * The adds and reads of a handle on a queue kept in a PostgreSQL table: core's
 * {@link QueueDriver} over the table, for the handle that {@link PostgresWorkQueues}
 * builds ({@link dev.workqueue.store.SharedStoreQueue}).
 * <p>
 * All shared state is the queue's rows (one per item, {@code schema.sql}); each change of
 * an item's state is one statement ({@link QueueSql}). Adds go as {@link ItemAdds} says:
 * in the caller's transaction when it has one open, else grouped with the handle's
 * concurrent adds into one commit. The reads are one statement each, on the handle's
 * pool.
 * <p>
 * <b>Trace contexts.</b> With a {@link TraceContextSource}, an add that gets a context
 * sends it with its upsert, which keeps it in the item's row
 * ({@link QueueSql#addTraced}); the claim takes it for the worker's
 * {@link Poller#trace()}. An add without a context sends what it would without a source.
 * <p>
 * Thread-safe: it keeps no state of its own beyond its parts.
 */
final class HandleStatements implements QueueDriver {

	private final ItemAdds adds;

	private final QueueDatabase database;

	private final QueueSql sql;

	/** Stopped by a shutdown: a shut-down handle waits for no notice. */
	private final QueueNotices notices;

	/** Tells of a held cleanup horizon. */
	private final FinishedRows rows;

	/** The handle's lease keeper, for tests. */
	private final LeaseKeeper keeper;

	/** The handle's ready signal, for tests. */
	private final ReadySignal signal;

	private final InspectionDriver inspection;

	HandleStatements(ItemAdds adds, QueueDatabase database, QueueSql sql, QueueNotices notices, FinishedRows rows,
			LeaseKeeper keeper, ReadySignal signal, InspectionDriver inspection) {
		this.inspection = inspection;
		this.adds = adds;
		this.database = database;
		this.sql = sql;
		this.notices = notices;
		this.rows = rows;
		this.keeper = keeper;
		this.signal = signal;
	}

	/** {@inheritDoc} PostgreSQL's {@code text} holds no NUL character. */
	@Override
	public void checkEncoding(String encoded) {
		if (!storable(encoded)) {
			int nul = encoded.indexOf('\0');
			throw new IllegalArgumentException("item must not encode to text holding a NUL character (U+0000), "
					+ "which PostgreSQL cannot store: its encoding has one at index " + nul
					+ "; use a codec that escapes it");
		}
	}

	/**
	 * Whether PostgreSQL can keep an item's text: no text value holds a NUL.
	 * @param encoded the item's text
	 * @return {@code false} if it holds a NUL
	 */
	static boolean storable(String encoded) {
		return encoded.indexOf('\0') < 0;
	}

	@Override
	public long add(String encoded, int priority, String context) {
		return this.adds.add(List.of(new Request(encoded, priority, 0, context))).get(0).effective() ? 1 : 0;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Outside a caller's transaction the items go in one statement and one commit (with
	 * the concurrent adds of other threads).
	 */
	@Override
	public void addAll(List<String> encoded, String context, LongConsumer counted) {
		List<Request> requests = new ArrayList<>(encoded.size());
		for (String item : encoded) {
			requests.add(new Request(item, 0, 0, context));
		}
		long effective = 0;
		for (Added added : this.adds.add(requests)) {
			if (added.effective()) {
				effective++;
			}
		}
		counted.accept(effective);
	}

	@Override
	public void addAfter(String encoded, int priority, long delayNanos, String context) {
		this.adds.add(List.of(new Request(encoded, priority, Delays.micros(delayNanos), context)));
	}

	/** {@inheritDoc} One count of the shared ready rows. */
	@Override
	public int size() {
		return read("read the size of", this.sql.size, (rows) -> {
			rows.next();
			return rows.getInt(1);
		});
	}

	@Override
	public Figures figures() {
		return read("read the figures of", this.sql.stats, (rows) -> {
			if (!rows.next()) {
				return new Figures(0, 0, 0, 0, 0);
			}
			return new Figures((int) rows.getLong(1), (int) rows.getLong(2), (int) rows.getLong(3),
					(int) rows.getLong(4), rows.getLong(5) * 1000);
		});
	}

	@Override
	public List<Level> readyLevels() {
		return read("read the levels of", this.sql.levels, (rows) -> {
			List<Level> levels = new ArrayList<>();
			while (rows.next()) {
				levels.add(new Level(rows.getInt(1), rows.getInt(2), rows.getLong(3) * 1000));
			}
			return levels;
		});
	}

	/** One read: {@code :now} and {@code :queue}. */
	private <R> R read(String action, SqlStatement sql, Reader<R> reader) {
		return this.database.run(action, (connection) -> {
			try (PreparedStatement statement = sql.prepare(connection)) {
				this.database.bindNow(sql, statement);
				sql.setString(statement, "queue", this.database.name());
				try (ResultSet rows = statement.executeQuery()) {
					return reader.read(rows);
				}
			}
		});
	}

	/** Reads a result. */
	@FunctionalInterface
	private interface Reader<R> {

		R read(ResultSet rows) throws SQLException;

	}

	/** {@inheritDoc} Here {@link PostgresInspection}. */
	@Override
	public InspectionDriver inspection() {
		return this.inspection;
	}

	/** {@inheritDoc} Here the table. */
	@Override
	public String server() {
		return this.database.table();
	}

	/** Another session holding back the table's cleanup: the queue works, slower. */
	@Override
	public String warning() {
		return this.rows.warning();
	}

	/** A shut-down handle waits for no notice. */
	@Override
	public void afterShutDown() {
		this.notices.stopListening();
	}

	/**
	 * {@inheritDoc} PostgreSQL's own failure of an add committed on its own: one inside
	 * the caller's transaction aborted it, and the caller must hear of that.
	 */
	@Override
	public boolean ignorableAtShutDown(RuntimeException failure) {
		return failure instanceof PostgresQueueException && !(failure instanceof CallerTransactionFailure);
	}

	@Override
	public String description() {
		return "PostgresWorkQueue[" + this.database.name() + " in " + this.database.table() + "]";
	}

	/** How many consumers wait for a notice; for tests. */
	int waitingConsumers() {
		return this.signal.waiting();
	}

	/**
	 * How many notices the handle's consumers were given (its own adds' local signals and
	 * the notices it heard); for tests.
	 */
	long notices() {
		return this.signal.epoch();
	}

	/** The lease keeper, for tests. */
	LeaseKeeper keeper() {
		return this.keeper;
	}

}
