package dev.workqueue.benchmarks;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 30: items per second of {@value #WORKERS} workers draining a backlog of
 * {@value #ITEMS} items from a queue on PostgreSQL, with the commits per item.
 * <p>
 * <b>Workload.</b> Before each invocation, not measured, a fresh queue (a new name) is
 * filled with {@value #ITEMS} distinct items, the fastest way each side has (ours: eight
 * threads adding one item at a time; db-scheduler: {@code scheduleBatch}), on a pool that
 * is then closed. A second pool is opened and the queue object built on it. The
 * invocation starts the {@value #WORKERS} workers (ours: threads with their pollers;
 * db-scheduler: a scheduler of {@value #WORKERS} threads) and ends when they have
 * processed all {@value #ITEMS}; the teardown stops them, closes the pool and fails the
 * run unless exactly {@value #ITEMS} items were processed and the table is empty. The
 * score is items per second; JMH counts only the invocations' own time.
 * <p>
 * <b>Auxiliary counters</b> (see {@link Figures}): {@code commitsPerItem}, the database's
 * {@code xact_commit} from just before the invocation to after the drain's pool has
 * closed and its backends have exited (so every commit is reported: exact, see
 * {@link PostgresAdmin}), per item; {@code switchesPerItem}, this JVM's context switches
 * ({@link ContextSwitches}) from just before the invocation to the drain's end, with the
 * workers still alive, per item: the thread hand-offs a drain costs, which do not get
 * cheaper on a faster machine. Each iteration also prints the fill's rate.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(PostgresBacklogBenchmark.ITEMS)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class PostgresBacklogBenchmark {

	static final int ITEMS = 20_000;

	static final int WORKERS = 16;

	static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

	static final List<String> NAMES = Arrays.asList(names(ITEMS));

	@Benchmark
	public void drain_ours(Ours backlog) throws InterruptedException {
		backlog.drain();
	}

	@Benchmark
	public void drain_dbScheduler(DbScheduler backlog) throws InterruptedException {
		backlog.drain();
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Database {

		public double commitsPerItem;

		public double switchesPerItem;

	}

	/** A queue filled with a fresh backlog before each invocation. */
	public abstract static class Filled {

		private final CommitProfile commits = new CommitProfile();

		private String database;

		private PostgresAdmin admin;

		private PostgresContender contender;

		private PostgresContender.Queue queue;

		private Progress progress;

		private PostgresContender.Consumers workers;

		private int invocation;

		/** The JVM's context switches during this iteration's drains, and their items. */
		private double switches;

		private long drained;

		private ContextSwitches switchesFrom;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void open() {
			this.database = PostgresAdmin.createDatabase();
			this.admin = PostgresAdmin.connect(this.database);
			PostgresContender.named(contenderName()).install(this.admin);
		}

		@Setup(Level.Iteration)
		public void beginIteration() {
			this.commits.reset();
			this.switches = 0;
			this.drained = 0;
		}

		@Setup(Level.Invocation)
		public void fill() throws InterruptedException {
			String name = "backlog-" + this.invocation++;
			PostgresContender filler = PostgresContender.named(contenderName());
			filler.open(this.database, "wqbench-filler");
			long startNanos = System.nanoTime();
			PostgresContender.Queue fillQueue = filler.queue(name);
			fillQueue.addAll(NAMES);
			long fillNanos = System.nanoTime() - startNanos;
			fillQueue.stop();
			filler.close();
			System.out.printf("fill: %d items in %d ms (%.0f items/s)%n", ITEMS, fillNanos / 1_000_000,
					ITEMS * 1e9 / fillNanos);
			this.admin.awaitNoClients();
			this.contender = PostgresContender.named(contenderName());
			this.contender.open(this.database, "wqbench-drain");
			this.queue = this.contender.queue(name);
			this.progress = new Progress();
			this.workers = null;
			this.commits.start(this.admin);
			this.switchesFrom = ContextSwitches.start();
		}

		final void drain() throws InterruptedException {
			this.workers = this.queue.consume(WORKERS, (item) -> this.progress.add(1), this.progress::fail);
			if (!this.progress.awaitAtLeast(ITEMS, STALL_NANOS)) {
				throw new IllegalStateException("the backlog was not drained in 60 s: " + this.progress.count() + " of "
						+ ITEMS + " processed");
			}
		}

		@TearDown(Level.Invocation)
		public void end(Database figures, BenchmarkParams params) throws InterruptedException {
			if (this.workers != null) {
				// Read while the workers are alive: a thread that ends takes its count.
				this.switches += this.switchesFrom.sinceStart();
				this.drained += ITEMS;
				this.workers.stop();
			}
			this.queue.stop();
			String statements = this.contender.statementsPerItem(ITEMS);
			if (!statements.isEmpty()) {
				System.out.println("drain statements per item: " + statements);
			}
			this.contender.close();
			this.admin.awaitNoClients();
			this.commits.stop(this.admin, ITEMS);
			figures.commitsPerItem = this.commits.perItem() * Figures.share(params);
			figures.switchesPerItem = (this.drained == 0) ? 0 : this.switches / this.drained * Figures.share(params);
			long left = this.admin.rows(PostgresContender.named(contenderName()).tables().get(0));
			if (this.workers != null && (this.progress.count() != ITEMS || left != 0)) {
				throw new IllegalStateException("expected " + ITEMS + " items processed and none left, counted "
						+ this.progress.count() + " processed, " + left + " rows left");
			}
		}

		@TearDown(Level.Iteration)
		public void endIteration() {
			System.out.println(this.commits.line(contenderName() + " drain by " + WORKERS + " workers"));
		}

		@TearDown(Level.Trial)
		public void close() {
			this.admin.close();
			PostgresAdmin.dropDatabase(this.database);
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Filled {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class DbScheduler extends Filled {

		@Override
		String contenderName() {
			return "db-scheduler";
		}

	}

	static String[] names(int count) {
		String[] items = new String[count];
		for (int i = 0; i < count; i++) {
			items[i] = "item-" + i;
		}
		return items;
	}

}
