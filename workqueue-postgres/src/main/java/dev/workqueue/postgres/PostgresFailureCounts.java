package dev.workqueue.postgres;

import dev.workqueue.ItemCodec;
import dev.workqueue.ratelimit.FailureCounts;

/**
 * Failure counts in the {@code _limit} table that every instance shares: the store of the
 * shared exponential and fast-slow limiters (core's arithmetic over counts kept here),
 * and of the attempts behind {@code max-retries}. Each call is one statement; counting
 * and forgetting join the caller's transaction when one is open. A count expires once no
 * failure was counted for the builder's history time to live.
 *
 * @param <T> the item type
 */
final class PostgresFailureCounts<T> implements FailureCounts<T> {

	private final LimitTable table;

	private final ItemCodec<T> codec;

	private final String kind;

	private final Forgets<T> forgets;

	PostgresFailureCounts(LimitTable table, ItemCodec<T> codec, String kind, Forgets<T> forgets) {
		this.table = table;
		this.codec = codec;
		this.kind = kind;
		this.forgets = forgets;
	}

	@Override
	public int countFailure(T item) {
		String encoded = LimitTable.encode(this.codec, item);
		forgetDeferred(item, encoded);
		return this.table.countFailure(this.kind, encoded);
	}

	@Override
	public int failures(T item) {
		String encoded = LimitTable.encode(this.codec, item);
		forgetDeferred(item, encoded);
		return this.table.failures(this.kind, encoded);
	}

	/**
	 * Forgets the item, in the done of a lease that a handle of the queue holds when
	 * there is one (see {@link Forgets}), else now.
	 */
	@Override
	public void forget(T item) {
		String encoded = LimitTable.encode(this.codec, item);
		if (this.table.inCallerTransaction() || !this.forgets.defer(item, this.kind)) {
			this.table.delete(this.kind, encoded, false);
		}
	}

	/** Runs now a forget deferred to a done that has not come yet. */
	private void forgetDeferred(T item, String encoded) {
		if (this.forgets.takeBack(item, this.kind)) {
			this.table.delete(this.kind, encoded, false);
		}
	}

	@Override
	public String toString() {
		return "PostgresFailureCounts[" + this.kind + " of " + this.table.describe() + "]";
	}

}
