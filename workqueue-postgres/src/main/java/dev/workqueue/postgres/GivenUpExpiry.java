package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.PreparedStatement;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.time.Nanos;

/**
 * Deletes a queue's given-up records past this handle's retention, which no list shows or
 * counts, so that a queue that no longer gives up keeps none of them for good (a give-up
 * deletes them too, in its own statement). Each handle that keeps records runs it at most
 * once per {@link #INTERVAL_NANOS}, from its keeper's tick, in batches; one that keeps
 * none deletes none, as its give-ups do. Upkeep only: a failure (a user not granted the
 * given-up table, a database out of reach) is logged, once, and never fails the tick that
 * ran it. Used by the keeper's thread only.
 */
final class GivenUpExpiry {

	private static final System.Logger logger = System.getLogger(GivenUpExpiry.class.getName());

	/** How often a handle looks: a record outlives its retention by at most this. */
	static final long INTERVAL_NANOS = 60_000_000_000L;

	/** The most records one statement deletes. */
	private static final int BATCH = 1000;

	private final QueueDatabase database;

	private final QueueSql sql;

	private final GivenUpBound bound;

	/** When the next look is due, on the queue's clock. */
	private long dueNanos;

	/** Whether the last look failed: its failure was logged. */
	private boolean failing;

	GivenUpExpiry(QueueDatabase database, QueueSql sql, GivenUpBound bound, long nowNanos) {
		this.database = database;
		this.sql = sql;
		this.bound = bound;
		this.dueNanos = nowNanos;
	}

	/**
	 * Deletes the records past the retention, if a look is due at {@code nowNanos}.
	 * @param nowNanos the clock's reading
	 */
	void runIfDue(long nowNanos) {
		if (this.bound.keep() == 0 || nowNanos - this.dueNanos < 0) {
			return;
		}
		this.dueNanos = Nanos.add(nowNanos, INTERVAL_NANOS);
		try {
			while (deleteBatch() == BATCH) {
				// More may be left: the next batch.
			}
			this.failing = false;
		}
		catch (PostgresQueueException ex) {
			logger.log(this.failing ? Level.DEBUG : Level.WARNING, ex.getMessage()
					+ "; the records past their retention, which no list shows, stay until a later look", ex);
			this.failing = true;
		}
	}

	private int deleteBatch() {
		SqlStatement expire = this.sql.givenUpExpire;
		return this.database.run("delete the given-up items past their retention of", (connection) -> {
			try (PreparedStatement statement = expire.prepare(connection)) {
				this.database.bindNow(expire, statement);
				expire.setString(statement, "queue", this.database.name());
				expire.setLong(statement, "retention", PostgresInspection.retentionMicros(this.bound));
				expire.setInt(statement, "batch", BATCH);
				return statement.executeUpdate();
			}
		});
	}

}
