package dev.workqueue.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.postgres.PostgresRateLimiters;
import dev.workqueue.postgres.PostgresWorkQueues;
import dev.workqueue.postgres.VacuumPolicy;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

/**
 * Our side of the PostgreSQL benchmarks: {@code workqueue-postgres} as a user builds it
 * (CONTRACT §5), with every default (30 s leases renewed while held, the database's
 * clock, {@code LISTEN} for wake-ups, durable commits) and the table {@value #TABLE} made
 * by {@link PostgresWorkQueues#schema}. Its {@code LISTEN} connection is opened outside
 * the pool (as the Spring starter does, from the JDBC URL), named
 * {@code <client name>-listen}. Each item is deduplicated while it waits, leased when
 * handed out and fenced on done: work db-scheduler does in part (its primary key drops a
 * second add; its executions are picked, with a heartbeat).
 * <p>
 * Workers run as a worker container runs them: each thread has its own {@link Poller} and
 * marks an item done with the claim of its next one ({@link Poller#doneAndPoll}).
 */
class OursPostgresContender implements PostgresContender {

	static final String TABLE = "wqbench_item";

	/** The worker containers' default {@code poll-timeout}. */
	private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);

	private final StatementCounts statements = new StatementCounts();

	private HikariDataSource dataSource;

	/** The pool, through the statement counter. */
	private DataSource counted;

	private String database;

	private String clientName;

	@Override
	public void install(PostgresAdmin admin) {
		admin.execute(PostgresWorkQueues.schema(TABLE));
	}

	@Override
	public List<String> tables() {
		return List.of(TABLE, TABLE + "_limit");
	}

	@Override
	public void open(String database, String clientName) {
		this.database = database;
		this.clientName = clientName;
		this.dataSource = PostgresContender.pool(database, clientName);
		this.counted = this.statements.wrap(this.dataSource);
	}

	@Override
	public Queue queue(String name) {
		PostgresWorkQueues.Builder<String> builder = PostgresWorkQueues.builder(this.counted, ItemCodec.strings())
			.name(name)
			.table(TABLE)
			.listenConnection(this::listenConnection);
		customize(builder);
		// As the starter builds a queue: the limiters and max-retries counts shared in
		// the
		// table, and the workers forget each item they finish (see Workers).
		PostgresRateLimiters.Builder<String> limiters = builder.rateLimiters();
		return new OursQueue(builder.buildRateLimitingQueue(limiters.defaultControllerRateLimiter()),
				limiters.attempts());
	}

	/**
	 * Sets what a variant changes (nothing here).
	 * @param builder the builder with the benchmarks' settings
	 * @return the builder
	 */
	PostgresWorkQueues.Builder<String> customize(PostgresWorkQueues.Builder<String> builder) {
		return builder;
	}

	/**
	 * Ours without its own vacuuming ({@code VacuumPolicy.NEVER}): the table is left to
	 * autovacuum, which is off on this server, so every dead row stays.
	 */
	static final class NoVacuum extends OursPostgresContender {

		@Override
		PostgresWorkQueues.Builder<String> customize(PostgresWorkQueues.Builder<String> builder) {
			return builder.vacuum(VacuumPolicy.NEVER);
		}

	}

	private Connection listenConnection() {
		try {
			return DriverManager
				.getConnection(PostgresAdmin.url(this.database) + "&ApplicationName=" + this.clientName + "-listen");
		}
		catch (SQLException ex) {
			throw PostgresContender.failed("LISTEN connection", ex);
		}
	}

	@Override
	public String statementsPerItem(long items) {
		return this.statements.perItem(items);
	}

	@Override
	public void close() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	private static final class OursQueue implements Queue {

		private final RateLimitingQueue<String> queue;

		private final FailureCounts<String> attempts;

		OursQueue(RateLimitingQueue<String> queue, FailureCounts<String> attempts) {
			this.queue = queue;
			this.attempts = attempts;
		}

		@Override
		public void add(String item) {
			this.queue.add(item);
		}

		@Override
		public void addAfter(String item, Duration delay) {
			this.queue.addAfter(item, delay);
		}

		@Override
		public void addAll(List<String> items) throws InterruptedException {
			// Eight threads adding one item at a time: their adds share commits.
			List<Thread> fillers = new ArrayList<>();
			AtomicReference<RuntimeException> failure = new AtomicReference<>();
			for (int f = 0; f < 8; f++) {
				int first = f;
				Thread filler = new Thread(() -> {
					try {
						for (int i = first; i < items.size(); i += 8) {
							this.queue.add(items.get(i));
						}
					}
					catch (RuntimeException ex) {
						failure.compareAndSet(null, ex);
					}
				}, "pg-bench-filler-" + f);
				fillers.add(filler);
				filler.start();
			}
			for (Thread filler : fillers) {
				filler.join();
			}
			if (failure.get() != null) {
				throw failure.get();
			}
		}

		@Override
		public Consumers consume(int workers, Consumer<String> sink, Consumer<Throwable> failure) {
			return new Workers(this.queue, this.attempts, workers, sink, failure);
		}

		@Override
		public void stop() {
			this.queue.shutDown();
		}

	}

	/** Worker threads, each with its own poller. */
	private static final class Workers implements Consumers {

		private final RateLimitingQueue<String> queue;

		private final FailureCounts<String> attempts;

		private final List<Thread> threads = new ArrayList<>();

		private final List<Poller<String>> pollers = new ArrayList<>();

		private final AtomicLong errors = new AtomicLong();

		private final AtomicReference<RuntimeException> firstError = new AtomicReference<>();

		private volatile boolean stopping;

		Workers(RateLimitingQueue<String> queue, FailureCounts<String> attempts, int count, Consumer<String> sink,
				Consumer<Throwable> failure) {
			this.queue = queue;
			this.attempts = attempts;
			for (int i = 0; i < count; i++) {
				Poller<String> poller = Pollers.of(queue);
				Thread thread = new Thread(() -> work(poller, sink, failure), "pg-bench-worker-" + i);
				thread.setDaemon(true);
				this.pollers.add(poller);
				this.threads.add(thread);
			}
			this.threads.forEach(Thread::start);
		}

		/**
		 * A worker container's loop: a success forgets the item (its limiter's history
		 * and its max-retries count) and marks it done with the next poll; on a failed
		 * call it drops the item it was marking done, as the container does (its lease
		 * brings it back), and goes on; the failures are counted and printed when the
		 * workers stop.
		 */
		private void work(Poller<String> poller, Consumer<String> sink, Consumer<Throwable> failure) {
			String item = null;
			try {
				while (!this.stopping) {
					Prioritized<String> next;
					try {
						if (item != null) {
							this.queue.forget(item);
							this.attempts.forget(item);
						}
						next = (item != null) ? poller.doneAndPoll(item, POLL_TIMEOUT) : poller.poll(POLL_TIMEOUT);
					}
					catch (RuntimeException ex) {
						if (!this.stopping && this.errors.getAndIncrement() == 0) {
							this.firstError.set(ex);
						}
						next = null;
					}
					item = null;
					if (next != null) {
						sink.accept(next.item());
						item = next.item();
					}
				}
				if (item != null) {
					this.queue.done(item);
				}
			}
			catch (InterruptedException ex) {
				// Stopped.
			}
			catch (RuntimeException | Error ex) {
				if (!this.stopping) {
					failure.accept(ex);
				}
			}
		}

		@Override
		public void stop() throws InterruptedException {
			this.stopping = true;
			this.pollers.forEach(Poller::wakeup);
			for (Thread thread : this.threads) {
				thread.join(15_000);
				if (thread.isAlive()) {
					throw new IllegalStateException(thread.getName() + " did not stop");
				}
			}
			if (this.errors.get() > 0) {
				System.out
					.println("worker calls failed: " + this.errors.get() + ", the first: " + this.firstError.get());
				this.firstError.get().printStackTrace(System.out);
			}
		}

	}

}
