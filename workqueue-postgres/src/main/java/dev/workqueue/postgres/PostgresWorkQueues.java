package dev.workqueue.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.GuardedMetrics;
import dev.workqueue.spi.PriorityHandle;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.store.ItemTaker;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.OptionChecks;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.SharedQueueBuilder;
import dev.workqueue.store.SharedStoreQueue;
import dev.workqueue.store.StoreWakeups;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * Builds work queues kept in a PostgreSQL table: every instance of an application that
 * builds a queue with the same table and name shares it, every rule of client-go's queues
 * (and of {@link PriorityQueue}) holds across them, and the queue survives restarts. An
 * add made while the calling thread has a transaction open on the same database is part
 * of that transaction. <pre class="code">
 * PostgresWorkQueues.Builder&lt;String&gt; orders = PostgresWorkQueues.builder(dataSource, ItemCodec.strings())
 *     .name("orders");
 * RateLimitingQueue&lt;String&gt; queue = orders
 *     .buildRateLimitingQueue(orders.rateLimiters().defaultControllerRateLimiter());
 * </pre>
 * <p>
 * The builder creates nothing in the database: run {@link #schema(String)} once (at
 * start-up, or from the application's migrations) before the queues are used.
 */
public final class PostgresWorkQueues {

	private static final System.Logger logger = System.getLogger(PostgresWorkQueues.class.getName());

	/** The table the queues use unless told otherwise. */
	public static final String DEFAULT_TABLE = "workqueue_item";

	private PostgresWorkQueues() {
	}

	/**
	 * Returns a builder of queues kept through {@code dataSource}.
	 * @param dataSource where the queues take their connections; a transaction-aware one
	 * (as the Spring starter gives) lets adds join the caller's transaction
	 * @param codec turns items into the text that identifies them in the table
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder(DataSource dataSource, ItemCodec<T> codec) {
		return new Builder<>(new PostgresOptions<>(dataSource, codec));
	}

	/**
	 * Returns everything the queues of {@code table} need in the database: the table, its
	 * indexes and storage settings, the sequence of fencing tokens, the table of the
	 * leases ({@code _lease} appended), the table of the shared rate limiters (named
	 * after {@code table}, with {@code _limit} appended) and the table of the given-up
	 * items ({@code _given_up} appended). It is idempotent ({@code IF NOT EXISTS}), and
	 * one {@link java.sql.Statement#execute(String)} runs it, so it fits a migration
	 * (Flyway, Liquibase) as well as a start-up.
	 * @param table the table's name, optionally schema-qualified
	 * ({@code jobs.workqueue_item})
	 * @return the SQL script
	 * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier
	 */
	public static String schema(String table) {
		String checked = new TableName(table).name();
		int dot = checked.indexOf('.');
		return SchemaScript.TEXT.replace("{table}", checked)
			.replace("{name}", checked.substring(dot + 1))
			.replace("{schema}", checked.substring(0, dot + 1));
	}

	/** The schema script, read once from the resource beside this class. */
	private static final class SchemaScript {

		static final String TEXT = read();

		private static String read() {
			try (InputStream in = PostgresWorkQueues.class.getResourceAsStream("schema.sql")) {
				if (in == null) {
					throw new IllegalStateException("schema.sql is missing beside " + PostgresWorkQueues.class);
				}
				return new String(in.readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new IllegalStateException("Cannot read schema.sql", ex);
			}
		}

	}

	/**
	 * Builds handles on one shared queue. Every option has a default except the name:
	 * table {@value PostgresWorkQueues#DEFAULT_TABLE}, 30 second leases, the database's
	 * clock, {@code LISTEN} on a connection of its own with a 1 second poll interval as a
	 * safety net, no metrics, durable commits, {@link VacuumPolicy#AUTO}. What is the
	 * PostgreSQL backend's own:
	 * <ul>
	 * <li>A handle renews the leases of all the items it holds in one statement, every
	 * third of the {@linkplain #lease(Duration) lease}; the item of a killed process is
	 * queued again at most a lease after its last renewal.</li>
	 * <li>The trace context of an add ({@link #traceContextSource}) is kept in the item's
	 * row (column {@code trace}, which {@link PostgresWorkQueues#schema(String)} adds to
	 * a table made by an earlier version), written by the add's own upsert, also in the
	 * caller's transaction; an add without a context runs the statement it would without
	 * a source.</li>
	 * <li>The {@linkplain #starvationTimeout starvation timeout} is the handle's: each
	 * claim applies the timeout of the handle that makes it.</li>
	 * <li>A plain queue and a priority queue should not share a name: each would hand out
	 * the other's items in its own order.</li>
	 * <li>The {@linkplain #givenUp(int, Duration) given-up items} are rows of the table
	 * named after {@code table} with {@code _given_up} appended, trimmed to the bound by
	 * each write; a pause ({@link dev.workqueue.inspect.QueueInspector#pause()}) is a row
	 * of the {@code _limit} table that every claim reads, and a resume notifies every
	 * listening instance.</li>
	 * </ul>
	 *
	 * @param <T> the item type
	 */
	public static final class Builder<T> extends SharedQueueBuilder<T, Builder<T>> {

		/** The shortest poll interval accepted. */
		public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(10);

		/**
		 * What the queue has in common with its limiters: with the limiters of
		 * {@link #rateLimiters()} their forgets, which ride with the dones of the handles
		 * built here.
		 */
		private final PostgresOptions<T> options;

		private boolean listen = true;

		private Duration pollInterval = Duration.ofSeconds(1);

		private boolean synchronousCommit = true;

		private VacuumPolicy vacuum = VacuumPolicy.AUTO;

		private Builder(PostgresOptions<T> options) {
			super("PostgresPriorityQueue");
			this.options = options;
		}

		/**
		 * Sets the queue's name (required): instances with the same table and name share
		 * the queue.
		 * @param name the name, not empty
		 * @return this builder
		 */
		public Builder<T> name(String name) {
			this.options.name(name);
			return this;
		}

		/**
		 * Sets the table (default {@value PostgresWorkQueues#DEFAULT_TABLE}), which any
		 * number of queues may share; {@link PostgresWorkQueues#schema(String)} creates
		 * it.
		 * @param table a plain SQL identifier, optionally schema-qualified
		 * @return this builder
		 */
		public Builder<T> table(String table) {
			this.options.table(table);
			return this;
		}

		/**
		 * Sets the clock of delays, leases and waits. By default delays and leases use
		 * the database's clock and waits the system clock; a clock given here is used for
		 * all three (tests step a {@code FakeClock}). Its readings, whose origin is
		 * arbitrary, are anchored on the database's time once, at the build or before the
		 * first statement, and count from there, so instances given different clocks
		 * agree. The queue keeps its kind of clock (the database's, or given) with its
		 * data: a build of the other kind fails with an {@link IllegalStateException}
		 * naming both ({@code docs/postgres.md}, "Upgrading").
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder<T> clock(Clock clock) {
			this.options.clock(clock);
			return this;
		}

		/**
		 * Sets where the one {@code LISTEN} connection of this JVM and database comes
		 * from. It should be made outside any pool, so that the pool's lifetime and leak
		 * rules do not close it; it is opened again when it breaks. The handles given the
		 * same supplier (the same object) share one connection, so give every queue of
		 * the application the same one.
		 * <p>
		 * By default the handles on one {@link #workerDataSource worker data source} (the
		 * builder's {@code DataSource} unless set) share one connection opened outside
		 * its pool, for as long as one of them listens: the pool's own unpooled data
		 * source (HikariCP's made from its {@code jdbcUrl}, or pgjdbc's
		 * {@code PGSimpleDataSource} it wraps) opens it. Where none can be found behind
		 * the data source, one connection is held from it: with a pool, one of its
		 * connections taken for good (a pool of one connection then leaves none for the
		 * queues' work). Either way a connection that fails is closed, down to the
		 * physical connection under a pool's wrapper, so a pool never hands it out again.
		 * @param connections opens a new connection each time it is called
		 * @return this builder
		 */
		public Builder<T> listenConnection(Supplier<Connection> connections) {
			this.options.listenConnection(connections);
			return this;
		}

		/**
		 * Sets whether consumers wait for {@code NOTIFY} (default {@code true}). Without
		 * it (behind a transaction-pooling proxy, where {@code LISTEN} cannot work) they
		 * look for work every {@link #pollInterval(Duration)}, and nothing else changes;
		 * such a handle sends no {@code NOTIFY} either, so the instances sharing a queue
		 * should agree on this setting. Either way a handle's own adds wake its own
		 * consumers at once, and a waiting consumer also looks when the earliest delayed
		 * item it knows of falls due.
		 * @param listen whether to listen
		 * @return this builder
		 */
		public Builder<T> listen(boolean listen) {
			this.listen = listen;
			return this;
		}

		/**
		 * Sets how often a waiting consumer looks for work when no notice comes (default
		 * 1 second, at least 10 ms): the whole mechanism without {@code LISTEN}, a safety
		 * net with it.
		 * @param interval the interval
		 * @return this builder
		 */
		public Builder<T> pollInterval(Duration interval) {
			this.pollInterval = OptionChecks.atLeast("pollInterval", interval, MIN_POLL_INTERVAL);
			return this;
		}

		/**
		 * Sets where {@code get}, {@code poll}, {@code done} and lease renewals take
		 * their connections (default: the builder's {@code DataSource}). They must never
		 * join a caller's transaction: when the builder's {@code DataSource} is
		 * transaction-aware, give the plain one it wraps here.
		 * @param dataSource a data source whose connections are outside any caller's
		 * transaction
		 * @return this builder
		 */
		public Builder<T> workerDataSource(DataSource dataSource) {
			this.options.workerDataSource(dataSource);
			return this;
		}

		/**
		 * Sets how an add tells whether the calling thread has a transaction open that it
		 * must join (default: the builder's {@code DataSource} hands out a connection
		 * with auto-commit off). Spring's starter asks Spring's transaction management,
		 * so that a pool whose connections have auto-commit off outside transactions
		 * still commits each add.
		 * @param active answers {@code true} while the calling thread's transaction is
		 * open
		 * @return this builder
		 */
		public Builder<T> callerTransaction(BooleanSupplier active) {
			this.options.callerTransaction(active);
			return this;
		}

		/**
		 * Sets whether the queue's own transactions wait for their commit to be durable
		 * (default {@code true}). With {@code false}, they run with
		 * {@code synchronous_commit = off}: a crash of the database server may lose the
		 * last few hundred milliseconds of acknowledged adds and dones (a lost done means
		 * the item is processed again), in exchange for commits that do not wait for the
		 * disk. Adds inside the caller's transaction follow the caller's setting.
		 * @param synchronousCommit whether commits wait for the disk
		 * @return this builder
		 */
		public Builder<T> synchronousCommit(boolean synchronousCommit) {
			this.synchronousCommit = synchronousCommit;
			return this;
		}

		/**
		 * Sets who vacuums the table (default {@link VacuumPolicy#AUTO}). Every item
		 * leaves dead rows behind; under {@code AUTO} the instances count them and, where
		 * the server's autovacuum is off (for the server or for the table), run
		 * {@code VACUUM} on the table themselves after enough of them, from one instance
		 * at a time, never failing the queue if they may not. Where autovacuum runs they
		 * leave it the table (whose settings {@link PostgresWorkQueues#schema(String)}
		 * sets for it); {@link VacuumPolicy#ALWAYS} vacuums there too, and
		 * {@link VacuumPolicy#NEVER} leaves the table to autovacuum or the operator: on a
		 * server without autovacuum it then grows with every item that passes through it.
		 * Whatever the policy, the instances delete the expired rows of the limiters'
		 * table. Handles of one JVM on one table with the same policy share one keeper.
		 * @param policy who vacuums the table
		 * @return this builder
		 */
		public Builder<T> vacuum(VacuumPolicy policy) {
			this.vacuum = Objects.requireNonNull(policy, "policy");
			return this;
		}

		/**
		 * Returns a builder of the shared rate limiters of the queue this builder builds
		 * ({@link PostgresRateLimiters}): on the same data source, codec, name, table and
		 * clock, with the same worker data source and caller-transaction rule, as set on
		 * this builder so far (later changes to either builder do not reach the other).
		 * Their failure counts join the caller's transaction as this queue's adds do.
		 * @return a new builder of limiters
		 */
		@Override
		public PostgresRateLimiters.Builder<T> rateLimiters() {
			return new PostgresRateLimiters.Builder<>(this.options.copy());
		}

		@Override
		protected PriorityHandle<T> newHandle(boolean prioritized) {
			return handle(prioritized ? ReadyOrder.PRIORITY : ReadyOrder.FIFO);
		}

		/**
		 * Checks the queue's mark (format and kind of clock, {@link StoreMark}) if the
		 * database answers (else its first statement does), makes the parts of a handle,
		 * each with what it uses, then the handle, and starts its lease keeper.
		 * @throws IllegalStateException if the queue's data is kept in another format, or
		 * timed by the other kind of clock, or an instance of the previous release is
		 * live
		 */
		private SharedStoreQueue<T, PostgresLease> handle(ReadyOrder order) {
			String name = this.options.requiredName("instances with the same table and name share the queue");
			Clock clock = (this.options.clock() != null) ? this.options.clock() : Clock.system();
			DataSource workers = (this.options.workerDataSource() != null) ? this.options.workerDataSource()
					: this.options.dataSource;
			long leaseNanos = Nanos.of(lease());
			long pollIntervalNanos = Nanos.of(this.pollInterval);
			boolean starving = order == ReadyOrder.PRIORITY && starvationTimeout() != null;
			QueueSql sql = new QueueSql(this.options.table(), order, starving, this.synchronousCommit);
			QueueDatabase database = new QueueDatabase(workers, this.options.clock(), name, this.options.table());
			database.ensureMarkIfReachable();
			if (this.options.callerTransaction() == null) {
				warnIfAutoCommitOff(name);
			}
			WorkQueueMetrics metrics = GuardedMetrics.guard(metrics(), name);
			String holder = holderId();
			LeaseBook<T, PostgresLease> book = new LeaseBook<>();
			this.options.forgets.attach(book);
			ReadySignal signal = new ReadySignal(clock, StoreWakeups.everyNotice(pollIntervalNanos),
					(this.options.clock() != null) ? ClockAnchor.knownOffsetMicros(this.options.clock()) : null);
			Alarm alarm = new Alarm(clock);
			HandleLifecycle lifecycle = new HandleLifecycle(alarm::ring);
			FinishedRows rows = FinishedRows.kept(workers, this.options.table(), this.vacuum);
			QueueNotices notices;
			try {
				notices = this.listen
						? QueueNotices.listening(listenKey(workers), listenConnections(workers), workers,
								this.options.table(), name, holder, database.what("notify"), signal)
						: QueueNotices.NONE;
			}
			catch (RuntimeException ex) {
				rows.release();
				throw ex;
			}
			ReentrantReadWriteLock claims = new ReentrantReadWriteLock();
			ReleaseStatements statements = new ReleaseStatements(database, sql, signal, notices, rows);
			LeaseReleases<T, PostgresLease> releases = new LeaseReleases<>(statements, book, lifecycle, metrics, clock,
					alarm::ring);
			LeaseRenewal renewal = new LeaseRenewal(database, sql, leaseNanos);
			LeaseKeeper keeper = new LeaseKeeper(database, sql, renewal, statements, book, lifecycle, signal, metrics,
					clock, alarm, notices, rows, claims.writeLock(), holder, givenUp(), leaseNanos, pollIntervalNanos);
			DeadLetters deadLetters = new DeadLetters(database, sql, book, rows, alarm::ring, holder, givenUp());
			ItemClaims itemClaims = new ItemClaims(database, sql, renewal, statements, signal, clock, rows, deadLetters,
					claims.readLock(), notices, keeper::reconcileSoon, holder, leaseNanos,
					starving ? Delays.micros(Nanos.of(starvationTimeout())) : -1);
			ItemTaker<T, PostgresLease> taker = new ItemTaker<>(this.options.codec, itemClaims, book, releases, signal,
					lifecycle, metrics, clock, leaseNanos);
			ItemAdds adds = new ItemAdds(this.options.dataSource, this.options.callerTransaction(), database, sql,
					notices, signal, rows, new AddLeases(taker, itemClaims));
			SharedStoreQueue<T, PostgresLease> queue = new SharedStoreQueue<>(name, this.options.codec,
					new HandleStatements(adds, database, sql, notices, rows, keeper, signal,
							new PostgresInspection(database, sql, notices, signal, holder, givenUp())),
					clock, metrics, book, signal, lifecycle, taker, releases, keeper.work(),
					TraceContextSource.guard(traceContextSource(), name));
			keeper.start();
			return queue;
		}

		/**
		 * Says at the build when the builder's data source hands out connections with
		 * auto-commit off and no {@code callerTransaction} rule was given: by the default
		 * rule, such a connection is the caller's transaction, so on a pool set so every
		 * add made outside the caller's transactions would join one that nobody commits.
		 * A build runs outside them as a rule; a database out of reach says nothing here
		 * (the first add says why).
		 */
		private void warnIfAutoCommitOff(String name) {
			try (Connection connection = this.options.dataSource.getConnection()) {
				if (!connection.getAutoCommit()) {
					logger.log(Level.WARNING, "Queue '" + name
							+ "': the builder's DataSource hands out connections with"
							+ " auto-commit off, and no callerTransaction rule was given; by the default rule each add"
							+ " then joins the connection's transaction, and one made outside your transactions is never"
							+ " committed: give the builder callerTransaction(...) (docs/postgres.md, \"Transactions"
							+ " without Spring\")");
				}
			}
			catch (SQLException ex) {
				// Out of reach: the queue's first statement says so.
			}
		}

		/** What identifies the database of the LISTEN connection, for sharing it. */
		private Object listenKey(DataSource workers) {
			return (this.options.listenConnection() != null) ? this.options.listenConnection() : workers;
		}

		private Supplier<Connection> listenConnections(DataSource workers) {
			if (this.options.listenConnection() != null) {
				return this.options.listenConnection();
			}
			String table = this.options.table();
			return () -> {
				try {
					DataSource unpooled = UnpooledConnections.unpooled(workers);
					return ((unpooled != null) ? unpooled : workers).getConnection();
				}
				catch (SQLException ex) {
					throw SqlErrors.translate(ex, "open the LISTEN connection for table " + table);
				}
			};
		}

		/**
		 * A handle's id, the holder of its leases and the stamp of the notices it does
		 * not hear itself: the process and a random part, so that an operator can tell
		 * whose leases a row names.
		 */
		private static String holderId() {
			return ProcessHandle.current().pid() + "-"
					+ Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
		}

	}

}
