package dev.workqueue.postgres;

import java.sql.Connection;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.time.Clock;

/**
 * The options a queue and its shared limiters have in common, checked once: the data
 * source and the codec, the queue's name and table, the clock, the worker data source,
 * the caller-transaction rule, the source of connections outside any pool (the queue's
 * {@code LISTEN} connection source) and the forgets that ride with the queue's dones.
 * Each of {@link PostgresWorkQueues.Builder} and {@link PostgresRateLimiters.Builder}
 * keeps one; the limiters' builder a queue builder hands out starts from a copy of the
 * queue's. Not thread-safe, as the builders.
 *
 * @param <T> the item type
 */
final class PostgresOptions<T> {

	final DataSource dataSource;

	final ItemCodec<T> codec;

	/**
	 * Shared with the copies: the failure counts of the limiters a queue builder hands
	 * out defer their forgets to the dones of the handles it builds.
	 */
	final Forgets<T> forgets;

	/** {@code null} until set: it is required. */
	private String name;

	private String table = PostgresWorkQueues.DEFAULT_TABLE;

	/** {@code null}: the database's clock. */
	private Clock clock;

	/** {@code null}: the data source. */
	private DataSource workerDataSource;

	/** {@code null}: a connection with auto-commit off is the caller's transaction. */
	private BooleanSupplier callerTransaction;

	/** {@code null}: opened from the pool's own unpooled data source, if any. */
	private Supplier<Connection> listenConnection;

	PostgresOptions(DataSource dataSource, ItemCodec<T> codec) {
		this(Objects.requireNonNull(dataSource, "dataSource"), Objects.requireNonNull(codec, "codec"), new Forgets<>());
	}

	private PostgresOptions(DataSource dataSource, ItemCodec<T> codec, Forgets<T> forgets) {
		this.dataSource = dataSource;
		this.codec = codec;
		this.forgets = forgets;
	}

	/** A copy, to change apart, sharing the forgets. */
	PostgresOptions<T> copy() {
		PostgresOptions<T> copy = new PostgresOptions<>(this.dataSource, this.codec, this.forgets);
		copy.name = this.name;
		copy.table = this.table;
		copy.clock = this.clock;
		copy.workerDataSource = this.workerDataSource;
		copy.callerTransaction = this.callerTransaction;
		copy.listenConnection = this.listenConnection;
		return copy;
	}

	void name(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("name must not be empty");
		}
		this.name = name;
	}

	void table(String table) {
		this.table = new TableName(table).name();
	}

	void clock(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "clock");
	}

	void workerDataSource(DataSource dataSource) {
		this.workerDataSource = Objects.requireNonNull(dataSource, "dataSource");
	}

	void callerTransaction(BooleanSupplier active) {
		this.callerTransaction = Objects.requireNonNull(active, "active");
	}

	void listenConnection(Supplier<Connection> connections) {
		this.listenConnection = Objects.requireNonNull(connections, "connections");
	}

	/**
	 * The queue's name.
	 * @param why why it is needed, for the message
	 * @return the name
	 * @throws IllegalStateException if it was not set
	 */
	String requiredName(String why) {
		if (this.name == null) {
			throw new IllegalStateException("name is required: " + why);
		}
		return this.name;
	}

	/** The table, checked. */
	String table() {
		return this.table;
	}

	/** The clock given, or {@code null} for the database's. */
	Clock clock() {
		return this.clock;
	}

	/** The worker data source given, or {@code null} for the data source. */
	DataSource workerDataSource() {
		return this.workerDataSource;
	}

	/** The caller-transaction rule given, or {@code null} for the default. */
	BooleanSupplier callerTransaction() {
		return this.callerTransaction;
	}

	/** The source of connections outside any pool, or {@code null} if none was given. */
	Supplier<Connection> listenConnection() {
		return this.listenConnection;
	}

}
