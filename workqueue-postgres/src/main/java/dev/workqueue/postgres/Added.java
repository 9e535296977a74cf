package dev.workqueue.postgres;

/**
 * What an add did to its item's row, as the upsert answered.
 *
 * @param changed whether the add changed the row (else the item was queued already with
 * nothing to change)
 * @param effective whether it was a new add of the item: not queued or dirty before
 * (client-go counts only these)
 * @param queued whether the item is queued now (else it is being processed, dirty)
 * @param ready whether it is ready now
 * @param readyAtMicros when it is ready, µs since the epoch
 * @param nowMicros the statement's time, µs since the epoch
 */
record Added(boolean changed, boolean effective, boolean queued, boolean ready, long readyAtMicros, long nowMicros) {

	/** An add that changed nothing. */
	static final Added UNCHANGED = new Added(false, false, false, false, 0, 0);

}
