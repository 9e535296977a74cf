package dev.workqueue.postgres;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What an add did to its item's row, as the upsert answered.
 *
 * @param written whether the add wrote the row (changed it, or only stored a trace
 * context in it): a row version left dead
 * @param changed whether the add changed the item's place in the queue (else the item was
 * queued already with nothing to change, and at most its trace contexts changed)
 * @param effective whether it was a new add of the item: not queued or dirty before
 * (client-go counts only these)
 * @param queued whether the item is queued now (else it is being processed, dirty)
 * @param ready whether it is ready now
 * @param readyAtMicros when it is ready, µs since the epoch
 * @param nowMicros the statement's time, µs since the epoch
 */
record Added(boolean written, boolean changed, boolean effective, boolean queued, boolean ready, long readyAtMicros,
		long nowMicros) {

	/** An add that changed nothing. */
	static final Added UNCHANGED = new Added(false, false, false, false, false, 0, 0);

	/**
	 * Reads the answer of one add (see {@link QueueSql#add} and its variants): state,
	 * ready, ready time, effective, now, then (traced adds only) whether the place
	 * changed.
	 * @param row the answer, on the add's row
	 * @param first the column of the state
	 * @param traced whether the add was a traced one
	 * @return what the add did
	 * @throws SQLException if the answer cannot be read
	 */
	static Added read(ResultSet row, int first, boolean traced) throws SQLException {
		boolean changed = !traced || row.getBoolean(first + 5);
		return new Added(true, changed, row.getBoolean(first + 3), row.getInt(first) == 0, row.getBoolean(first + 1),
				row.getLong(first + 2), row.getLong(first + 4));
	}

	/**
	 * The due time a notice of this add carries, on the statements' clock, as the batch
	 * statements compute it.
	 * @return 0 if the item is ready now, else when it is due in ms since the epoch; -1
	 * if the add queued nothing to tell of
	 */
	long noticeDueMillis() {
		if (!this.changed || !this.queued) {
			return -1;
		}
		return this.ready ? 0 : Math.max(1, Math.floorDiv(this.readyAtMicros, 1000));
	}

}
