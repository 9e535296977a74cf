package dev.workqueue.benchmarks;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * One side of the PostgreSQL benchmarks (issue 30): a connection pool on a trial's
 * database ({@link PostgresAdmin}) and the queues built on it, behind the few calls the
 * workloads make, so that every workload is written once for both sides.
 * <p>
 * A side is chosen by name ({@link #named}): the worker JVMs of the 3-JVM case are told
 * which side to run with one argument, and each side's library code stays in its own file
 * ({@code OursPostgresContender}, {@code DbSchedulerContender}). Both take their
 * connections from a HikariCP pool of {@value #POOL_SIZE} (HikariCP's and so Spring
 * Boot's default size), each named {@code ApplicationName=<client name>}.
 */
interface PostgresContender extends AutoCloseable {

	/** Connections of each side's pool. */
	int POOL_SIZE = 10;

	/**
	 * Returns a new, unconnected side.
	 * @param name {@code ours}, {@code ours-no-vacuum} (ours without its own vacuuming)
	 * or {@code db-scheduler}
	 * @return the side
	 */
	static PostgresContender named(String name) {
		String className = switch (name) {
			case "ours" -> "dev.workqueue.benchmarks.OursPostgresContender";
			case "ours-no-vacuum" -> "dev.workqueue.benchmarks.OursPostgresContender$NoVacuum";
			case "db-scheduler" -> "dev.workqueue.benchmarks.DbSchedulerContender";
			default -> throw new IllegalArgumentException("no PostgreSQL contender named '" + name + "'");
		};
		try {
			return (PostgresContender) Class.forName(className).getDeclaredConstructor().newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("contender '" + name + "' is not in this build: " + ex, ex);
		}
	}

	/**
	 * Creates the side's table (and what goes with it) in a trial's database; run once,
	 * from the measured JVM, before any JVM opens the side.
	 * @param admin the measurement's connection to the database
	 */
	void install(PostgresAdmin admin);

	/**
	 * The side's tables, for their size and to empty them between iterations.
	 * @return the main table first
	 */
	List<String> tables();

	/**
	 * Opens the side's pool on a database.
	 * @param database the trial's database
	 * @param clientName the connections' {@code ApplicationName}
	 */
	void open(String database, String clientName);

	/**
	 * Builds a queue: ours' rate-limiting queue, a db-scheduler one-time task.
	 * @param name the queue's name, new in each iteration that needs a fresh queue
	 * @return the queue
	 */
	Queue queue(String name);

	/**
	 * Returns the statements this side ran in this JVM per item, by kind, when
	 * {@link StatementCounts} counts them.
	 * @param items the items processed
	 * @return the line, empty when not counting
	 */
	String statementsPerItem(long items);

	/** Closes the pool; stop the queues first. */
	@Override
	void close();

	/** A queue of string items, as each side offers it. */
	interface Queue {

		/**
		 * Adds an item to run now; returns once it is durable.
		 * @param item the item
		 */
		void add(String item);

		/**
		 * Adds an item to run once {@code delay} has passed.
		 * @param item the item
		 * @param delay the delay
		 */
		void addAfter(String item, Duration delay);

		/**
		 * Adds many items to run now, the fastest way the side has (a backlog's fill: not
		 * measured).
		 * @param items the items
		 * @throws InterruptedException if interrupted
		 */
		void addAll(List<String> items) throws InterruptedException;

		/**
		 * Starts consuming in this JVM: ours runs {@code workers} threads, each with its
		 * own poller (done with the next claim in one round trip, as the worker
		 * containers do); db-scheduler starts a scheduler of {@code workers} threads.
		 * @param workers how many
		 * @param sink called by a worker with each item it is handed, before the item is
		 * marked done
		 * @param failure called with what a worker of ours failed with (db-scheduler
		 * catches its own)
		 * @return the running consumers
		 */
		Consumers consume(int workers, Consumer<String> sink, Consumer<Throwable> failure);

		/** Stops this queue object (its consumers first); the items stay in the table. */
		void stop();

	}

	/** The consumers of one queue object in this JVM. */
	interface Consumers {

		/**
		 * Stops them and waits for them; an item being processed is finished first.
		 * @throws InterruptedException if interrupted
		 */
		void stop() throws InterruptedException;

	}

	/**
	 * Returns the pool both sides use: HikariCP with its defaults ({@value #POOL_SIZE}
	 * connections, auto-commit on), connections named {@code clientName}.
	 * @param database the trial's database
	 * @param clientName the connections' {@code ApplicationName} and the pool's name
	 * @return the pool, its connections opened
	 */
	static HikariDataSource pool(String database, String clientName) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PostgresAdmin.url(database));
		config.addDataSourceProperty("ApplicationName", clientName);
		config.setMaximumPoolSize(POOL_SIZE);
		config.setPoolName(clientName);
		return new HikariDataSource(config);
	}

	/**
	 * An {@link SQLException} as an unchecked exception, for the suppliers the libraries
	 * take.
	 * @param what what failed
	 * @param ex the exception
	 * @return the unchecked exception
	 */
	static IllegalStateException failed(String what, SQLException ex) {
		return new IllegalStateException(what + ": " + ex.getMessage(), ex);
	}

}
