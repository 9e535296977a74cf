package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.time.Clock;

/**
 * The statements of the shared limiters on one queue's rows of
 * <code>&lt;table&gt;_limit</code>: one statement per operation, each on a connection of
 * its own or on the caller's.
 * <p>
 * <b>Transactions.</b> Failure counts join the calling thread's transaction when it has
 * one open on the builder's data source (the {@code callerTransaction} supplier says so;
 * by default, the connection the data source hands out has auto-commit off): the count of
 * an {@code addRateLimited} commits or rolls back with the caller's add, and the
 * connection is neither committed nor rolled back here. Outside a transaction each
 * statement commits on its own. Token buckets never run under the caller's transaction (a
 * long transaction would hold the queue's one bucket row locked against every other
 * instance), nor on a pool's connection while it is open (the caller holds one, and the
 * pool may have none left: N transactions on a pool of N would all wait): their statement
 * then runs on a connection opened for it outside any pool, and closed after. Only where
 * no such connection can be opened (no listen-connection source given, and no unpooled
 * data source behind the pool) do they fall back to the worker data source, or without
 * one to the caller's transaction.
 * <p>
 * <b>Time.</b> Bucket times ({@code at}) are on the given clock, anchored on the
 * database's time once ({@link ClockAnchor}), or the database's; {@code expires_at} is
 * always the database's, since the keeper's expiry sweep compares it with the database's
 * clock. An expired failure count reads as none even before the sweep deletes it.
 * <p>
 * Immutable and thread-safe.
 */
final class LimitTable {

	private final DataSource dataSource;

	private final DataSource workerDataSource;

	private final String limitTable;

	private final String queue;

	private final Clock clock;

	private final BooleanSupplier callerTransaction;

	/** Opens connections outside any pool; {@code null} to find them behind a pool. */
	private final Supplier<Connection> ownConnections;

	private final long historyTtlMillis;

	private final SqlStatement count;

	private final SqlStatement read;

	private final SqlStatement delete;

	private final SqlStatement reserve;

	/**
	 * Creates the statements of one queue's limiters.
	 * @param dataSource where counts take their connections (perhaps the caller's)
	 * @param workerDataSource where buckets take theirs, outside any caller's
	 * transaction; {@code null} for {@code dataSource}
	 * @param table the queue table (the limiters use its {@code _limit} table)
	 * @param queue the queue's name
	 * @param clock the buckets' clock, {@code null} for the database's
	 * @param callerTransaction whether the calling thread's transaction is open,
	 * {@code null} to read it from the connection's auto-commit
	 * @param ownConnections opens a connection outside any pool for a bucket's token
	 * taken while the caller's transaction is open; {@code null} to use the pool's own
	 * unpooled data source ({@link UnpooledConnections})
	 * @param historyTtlMillis how long a failure count lives after its last failure
	 */
	LimitTable(DataSource dataSource, DataSource workerDataSource, String table, String queue, Clock clock,
			BooleanSupplier callerTransaction, Supplier<Connection> ownConnections, long historyTtlMillis) {
		this.dataSource = dataSource;
		this.workerDataSource = workerDataSource;
		this.ownConnections = ownConnections;
		this.limitTable = table + "_limit";
		this.queue = queue;
		this.clock = clock;
		this.callerTransaction = callerTransaction;
		this.historyTtlMillis = historyTtlMillis;
		this.count = SqlStatement.load("limit_count", table);
		this.read = SqlStatement.load("limit_failures", table);
		this.delete = SqlStatement.load("limit_delete", table);
		this.reserve = SqlStatement.load("limit_reserve", table);
	}

	/**
	 * Counts one more failure of an item.
	 * @return the failures before this one
	 */
	int countFailure(String kind, String item) {
		return run(this.dataSource, true, "count a failure of an item of", (connection) -> {
			try (PreparedStatement statement = this.count.prepare(connection)) {
				this.count.setString(statement, "queue", this.queue);
				this.count.setString(statement, "kind", kind);
				this.count.setString(statement, "item", item);
				this.count.setLong(statement, "ttl_millis", this.historyTtlMillis);
				return single(statement);
			}
		}).intValue();
	}

	/** The failures of an item (0 for none or expired). */
	int failures(String kind, String item) {
		return run(this.dataSource, true, "read the failures of an item of", (connection) -> {
			try (PreparedStatement statement = this.read.prepare(connection)) {
				this.read.setString(statement, "queue", this.queue);
				this.read.setString(statement, "kind", kind);
				this.read.setString(statement, "item", item);
				try (ResultSet result = statement.executeQuery()) {
					return result.next() ? result.getLong(1) : 0L;
				}
			}
		}).intValue();
	}

	/** Deletes an item's row of this kind; buckets' outside the caller's transaction. */
	void delete(String kind, String item, boolean bucket) {
		QueueDatabase.Work<Long> call = (connection) -> {
			try (PreparedStatement statement = this.delete.prepare(connection)) {
				this.delete.setString(statement, "queue", this.queue);
				this.delete.setString(statement, "kind", kind);
				this.delete.setString(statement, "item", item);
				return (long) statement.executeUpdate();
			}
		};
		if (bucket) {
			runOutsideCaller("forget an item of", call);
		}
		else {
			run(this.dataSource, true, "forget an item of", call);
		}
	}

	/**
	 * Reserves one token of a bucket.
	 * @param periodMicros the time one token takes to come back
	 * @param toleranceMicros the burst's worth of periods
	 * @param capMicros how far ahead the bucket's time may run at most
	 * @return how long to wait, in µs
	 */
	long reserve(String kind, String item, long periodMicros, long toleranceMicros, long capMicros) {
		long aheadMicros = runOutsideCaller("take a token of the rate limit of", (connection) -> {
			try (PreparedStatement statement = this.reserve.prepare(connection)) {
				this.reserve.setObject(statement, "now", now(connection), Types.TIMESTAMP_WITH_TIMEZONE);
				this.reserve.setString(statement, "queue", this.queue);
				this.reserve.setString(statement, "kind", kind);
				this.reserve.setString(statement, "item", item);
				this.reserve.setLong(statement, "period", periodMicros);
				this.reserve.setLong(statement, "cap", capMicros);
				return single(statement);
			}
		});
		return Math.max(0, aheadMicros - toleranceMicros);
	}

	/** Names the queue and table in messages. */
	String describe() {
		return "queue '" + this.queue + "' (table " + this.limitTable + ")";
	}

	/**
	 * Encodes an item, refusing what PostgreSQL cannot store before any SQL.
	 * @throws IllegalArgumentException if the encoding holds a NUL character
	 */
	static <T> String encode(ItemCodec<T> codec, T item) {
		Objects.requireNonNull(item, "item");
		String encoded = Objects.requireNonNull(codec.encode(item), "codec.encode(item)");
		if (encoded.indexOf('\0') >= 0) {
			throw new IllegalArgumentException(
					"item must not encode to text holding a NUL character (PostgreSQL cannot store it)");
		}
		return encoded;
	}

	private DataSource bucketSource() {
		return (this.workerDataSource != null) ? this.workerDataSource : this.dataSource;
	}

	/** The given clock's time on the database ({@link ClockAnchor}), or {@code null}. */
	private OffsetDateTime now(Connection connection) throws SQLException {
		if (this.clock == null) {
			return null;
		}
		long micros = ClockAnchor.micros(this.clock, connection);
		return OffsetDateTime.ofInstant(Instant.ofEpochSecond(0, Math.multiplyExact(micros, 1000)), ZoneOffset.UTC);
	}

	private static long single(PreparedStatement statement) throws SQLException {
		try (ResultSet result = statement.executeQuery()) {
			result.next();
			return result.getLong(1);
		}
	}

	/**
	 * Whether the calling thread has a transaction open that this table's writes join.
	 */
	boolean inCallerTransaction() {
		if (this.callerTransaction != null) {
			return this.callerTransaction.getAsBoolean();
		}
		try (Connection connection = this.dataSource.getConnection()) {
			return !connection.getAutoCommit();
		}
		catch (SQLException ex) {
			throw SqlErrors.translate(ex, "reach the table of " + describe());
		}
	}

	/**
	 * Runs a statement of a token bucket, never under the caller's transaction: while one
	 * is open (its connection taken from the pool, which may have none left), on a
	 * connection opened for it outside any pool and closed after; else on a connection of
	 * the worker data source. Without a way to open a connection outside the pool, on the
	 * worker data source, or on the caller's transaction without one.
	 */
	private Long runOutsideCaller(String what, QueueDatabase.Work<Long> call) {
		if (inCallerTransaction()) {
			Connection own = openOwn(what);
			if (own != null) {
				try (Connection connection = own) {
					return QueueDatabase.inOwnTransaction(connection, call);
				}
				catch (SQLException ex) {
					throw SqlErrors.translate(ex, what + " " + describe());
				}
			}
		}
		return run(bucketSource(), this.workerDataSource == null, what, call);
	}

	/** A connection outside any pool, or {@code null} if none can be opened so. */
	private Connection openOwn(String what) {
		try {
			if (this.ownConnections != null) {
				return this.ownConnections.get();
			}
			DataSource unpooled = UnpooledConnections.unpooled(bucketSource());
			return (unpooled != null) ? unpooled.getConnection() : null;
		}
		catch (SQLException ex) {
			throw SqlErrors.translate(ex, what + " " + describe());
		}
	}

	/**
	 * Runs one statement: on the caller's transaction if {@code joinable} and it is open,
	 * else in a transaction of its own.
	 */
	private Long run(DataSource source, boolean joinable, String what, QueueDatabase.Work<Long> call) {
		try (Connection connection = source.getConnection()) {
			if (joinable && ((this.callerTransaction != null) ? this.callerTransaction.getAsBoolean()
					: !connection.getAutoCommit())) {
				return call.run(connection);
			}
			return QueueDatabase.inOwnTransaction(connection, call);
		}
		catch (SQLException ex) {
			throw SqlErrors.translate(ex, what + " " + describe());
		}
	}

}
