package dev.workqueue.postgres;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.MaxOfRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.store.SharedLimiterFactory;
import dev.workqueue.time.Clock;

/**
 * Rate limiters whose state the instances of an application share in PostgreSQL, in the
 * queue table's <code>&lt;table&gt;_limit</code> table: one failure history per item, and
 * one token bucket per queue (or per item), whichever instance asks. They are client-go's
 * limiters with the same delays as core's
 * {@link dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter},
 * {@link dev.workqueue.ratelimit.ItemFastSlowRateLimiter},
 * {@link dev.workqueue.ratelimit.BucketRateLimiter} and
 * {@link dev.workqueue.ratelimit.ItemBucketRateLimiter}; combine them with core's
 * {@link MaxOfRateLimiter} and {@link dev.workqueue.ratelimit.WithMaxWaitRateLimiter},
 * which only compare and cap the delays. <pre class="code">
 * RateLimiter&lt;String&gt; limiter = PostgresRateLimiters.builder(dataSource, ItemCodec.strings())
 *     .name("orders")
 *     .defaultControllerRateLimiter();
 * </pre>
 * <p>
 * Rows are keyed by (queue, kind, item): {@code failures:exponential},
 * {@code failures:fast-slow} and {@code failures:attempts} hold counts, {@code bucket}
 * (item {@code ''}) and {@code item-bucket} hold a bucket's time in {@code at}. Each call
 * is one statement. A failure count lives until {@code forget}, or until no failure was
 * counted for the {@linkplain Builder#historyTtl history's time to live}; a bucket's row
 * expires once the bucket is full again. The queue's table keeper deletes expired rows.
 * <p>
 * <b>Transactions.</b> A failure count (the {@code when} of the exponential and fast-slow
 * limiters, {@code attempts()}) and a {@code forget} made while the calling thread has a
 * transaction open on the data source join that transaction: the count of an
 * {@code addRateLimited} commits or rolls back with the item's add. Token buckets never
 * take their token under it, so that a long transaction does not hold the queue's one
 * bucket row against every other instance, nor from the pool while it is open (the
 * caller's transaction holds a pool connection, and the pool may have none left): they
 * take it on a connection opened for that statement outside the pool, from the pool's own
 * unpooled data source (HikariCP's made from its {@code jdbcUrl}, or pgjdbc's
 * {@code PGSimpleDataSource}) or the queue builder's
 * {@linkplain PostgresWorkQueues.Builder#listenConnection listen-connection source}.
 * Where neither exists, they take it from the {@linkplain Builder#workerDataSource worker
 * data source}, or, without one, in the caller's transaction. Outside a transaction each
 * call commits on its own.
 * <p>
 * Calls throw {@link PostgresQueueException} when the database fails them, and
 * {@link IllegalArgumentException} for an item whose encoding holds a NUL character.
 */
public final class PostgresRateLimiters {

	private PostgresRateLimiters() {
	}

	/**
	 * Returns a builder of limiters kept through {@code dataSource}.
	 * @param dataSource where they take connections; a transaction-aware one (as the
	 * Spring starter gives) lets failure counts join the caller's transaction
	 * @param codec turns items into text
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder(DataSource dataSource, ItemCodec<T> codec) {
		return new Builder<>(new PostgresOptions<>(dataSource, codec));
	}

	/**
	 * Builds shared limiters for one queue. The name is required; instances that build a
	 * limiter of the same kind with the same table and name share its state. Each limiter
	 * takes the builder's settings as they are when it is built. Not thread-safe; the
	 * limiters are.
	 *
	 * @param <T> the item type
	 */
	public static final class Builder<T> extends SharedLimiterFactory<T> {

		/**
		 * What the limiters have in common with their queue: with a queue builder's
		 * limiters, its listen-connection source, which opens their connections outside
		 * any pool, and its forgets, which reach the leases of its handles.
		 */
		private final PostgresOptions<T> options;

		private Duration historyTtl = DEFAULT_HISTORY_TTL;

		Builder(PostgresOptions<T> options) {
			this.options = options;
		}

		/**
		 * Sets the name of the queue the limiters serve (required).
		 * @param name the name, not empty
		 * @return this builder
		 */
		public Builder<T> name(String name) {
			this.options.name(name);
			return this;
		}

		/**
		 * Sets the queue table whose {@code _limit} table keeps the limiters' rows
		 * (default {@value PostgresWorkQueues#DEFAULT_TABLE});
		 * {@link PostgresWorkQueues#schema(String)} creates both.
		 * @param table a plain SQL identifier, optionally schema-qualified
		 * @return this builder
		 */
		public Builder<T> table(String table) {
			this.options.table(table);
			return this;
		}

		/**
		 * Sets the clock of the token buckets (default: the database's), anchored on the
		 * database's time at its first use (as a queue builder's clock is); every
		 * instance should then be given a clock.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder<T> clock(Clock clock) {
			this.options.clock(clock);
			return this;
		}

		/**
		 * Sets how long an item's failure history (the limiters' counts and the
		 * {@link #attempts()}) stays after its last failure (default 1 day): the history
		 * of items that were never forgotten, such as deleted objects, does not stay for
		 * ever. It is measured on the database's clock.
		 * @param historyTtl the time to live, from 1 second to 100 years
		 * @return this builder
		 */
		public Builder<T> historyTtl(Duration historyTtl) {
			this.historyTtl = checkedHistoryTtl(historyTtl);
			return this;
		}

		/**
		 * Sets how a call tells whether the calling thread has a transaction open that
		 * its failure count must join (default: the data source hands out a connection
		 * with auto-commit off). Spring's starter asks Spring's transaction management.
		 * @param active answers {@code true} while the calling thread's transaction is
		 * open
		 * @return this builder
		 */
		public Builder<T> callerTransaction(BooleanSupplier active) {
			this.options.callerTransaction(active);
			return this;
		}

		/**
		 * Sets where the token buckets take their connections outside a caller's
		 * transaction (default: the builder's data source): connections outside any
		 * caller's transaction, such as the plain data source that a transaction-aware
		 * one wraps. Inside a caller's transaction they open one outside its pool (see
		 * the class's Javadoc), and only where none can be opened so take one here, so
		 * that each reservation commits at once instead of holding the bucket's row until
		 * the caller's transaction ends.
		 * @param dataSource a data source whose connections are outside any caller's
		 * transaction
		 * @return this builder
		 */
		public Builder<T> workerDataSource(DataSource dataSource) {
			this.options.workerDataSource(dataSource);
			return this;
		}

		@Override
		protected RateLimiter<T> storeBucket(double qps, int burst) {
			return new PostgresBucketRateLimiter<>(limitTable(), this.options.codec, false, qps, burst);
		}

		@Override
		protected RateLimiter<T> storeItemBucket(double qps, int burst) {
			return new PostgresBucketRateLimiter<>(limitTable(), this.options.codec, true, qps, burst);
		}

		@Override
		protected FailureCounts<T> failureCounts(String kind) {
			return new PostgresFailureCounts<>(limitTable(), this.options.codec, kind, this.options.forgets);
		}

		private LimitTable limitTable() {
			return new LimitTable(this.options.dataSource, this.options.workerDataSource(), this.options.table(),
					this.options.requiredName("the limiters' rows carry the queue's name"), this.options.clock(),
					this.options.callerTransaction(), this.options.listenConnection(), this.historyTtl.toMillis());
		}

	}

}
