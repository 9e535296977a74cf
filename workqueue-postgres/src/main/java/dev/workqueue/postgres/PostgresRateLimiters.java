package dev.workqueue.postgres;

import javax.sql.DataSource;

import dev.workqueue.ItemCodec;

/**
 * Rate limiters whose state the instances of an application share in PostgreSQL (the
 * queue table's {@code _limit} table). (Issue #30: being written.)
 */
public final class PostgresRateLimiters {

	private PostgresRateLimiters() {
	}

	/**
	 * Returns a builder of limiters kept through {@code dataSource}.
	 * @param dataSource where they take connections
	 * @param codec turns items into text
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder(DataSource dataSource, ItemCodec<T> codec) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/**
	 * Builds limiters of one queue.
	 *
	 * @param <T> the item type
	 */
	public static final class Builder<T> {

		private Builder() {
		}

	}

}
