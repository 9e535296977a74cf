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

	PostgresFailureCounts(LimitTable table, ItemCodec<T> codec, String kind) {
		this.table = table;
		this.codec = codec;
		this.kind = kind;
	}

	@Override
	public int countFailure(T item) {
		return this.table.countFailure(this.kind, LimitTable.encode(this.codec, item));
	}

	@Override
	public int failures(T item) {
		return this.table.failures(this.kind, LimitTable.encode(this.codec, item));
	}

	@Override
	public void forget(T item) {
		this.table.delete(this.kind, LimitTable.encode(this.codec, item), false);
	}

	@Override
	public String toString() {
		return "PostgresFailureCounts[" + this.kind + " of " + this.table.describe() + "]";
	}

}
