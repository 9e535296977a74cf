package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Issue 30: adds per second of {@value #THREADS} threads each adding distinct items to a
 * queue on PostgreSQL one call at a time, each call returning once its add is committed
 * and durable ({@code synchronous_commit} as the server has it: on); no consumer.
 * <p>
 * <b>Workload.</b> JMH's {@value #THREADS} threads call {@code add("item-" + n)},
 * {@code n} counting up over the trial, so no item is ever already queued. Each iteration
 * has a fresh queue; the tables are emptied after it. Ours: {@code add} (concurrent adds
 * of one queue object share a statement and a commit, each caller returning after the
 * commit that holds its own add); db-scheduler: {@code scheduleIfNotExists} to run now (a
 * select, then an insert, each committed on its own).
 * <p>
 * <b>Auxiliary counter</b> {@code commitsPerItem} (see {@link Figures}): the database's
 * {@code xact_commit} over the iteration per add, read while the pool is open (off by
 * under a second of commits at each end: see {@link PostgresAdmin}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(PostgresAddBenchmark.THREADS)
@Warmup(iterations = 1, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class PostgresAddBenchmark {

	static final int THREADS = 16;

	@Benchmark
	public void oneAtATime_ours(Ours adding, OursDatabase figures) {
		adding.add();
	}

	@Benchmark
	public void oneAtATime_dbScheduler(DbScheduler adding, DbSchedulerDatabase figures) {
		adding.add();
	}

	/**
	 * Our figures of one iteration, set by JMH's first thread (JMH adds the threads'
	 * counters up).
	 */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class OursDatabase {

		public double commitsPerItem;

		@TearDown(Level.Iteration)
		public void read(Ours adding, ThreadParams thread, IterationParams iteration, BenchmarkParams params) {
			this.commitsPerItem = adding.figure(thread, iteration, params);
		}

	}

	/** db-scheduler's figures of one iteration, as {@link OursDatabase}. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class DbSchedulerDatabase {

		public double commitsPerItem;

		@TearDown(Level.Iteration)
		public void read(DbScheduler adding, ThreadParams thread, IterationParams iteration, BenchmarkParams params) {
			this.commitsPerItem = adding.figure(thread, iteration, params);
		}

	}

	/** A queue with nothing but adds, fresh for each iteration. */
	@State(Scope.Benchmark)
	public abstract static class Adding {

		private final AtomicLong added = new AtomicLong();

		private final CommitProfile commits = new CommitProfile();

		private String database;

		private PostgresAdmin admin;

		private PostgresContender contender;

		private int iteration;

		private long addedBefore;

		private volatile PostgresContender.Queue queue;

		private volatile double perItem = Double.NaN;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void open() {
			this.database = PostgresAdmin.createDatabase();
			this.admin = PostgresAdmin.connect(this.database);
			this.contender = PostgresContender.named(contenderName());
			this.contender.install(this.admin);
			this.contender.open(this.database, "wqbench-adder");
		}

		@Setup(Level.Iteration)
		public void begin() {
			this.queue = this.contender.queue("add-" + this.iteration++);
			this.commits.reset();
			this.perItem = Double.NaN;
			this.addedBefore = this.added.get();
			this.commits.start(this.admin);
		}

		final void add() {
			this.queue.add("item-" + this.added.getAndIncrement());
		}

		/**
		 * Returns a thread's share of the iteration's commits per add: all of it for
		 * JMH's first thread in a measured iteration, else 0. Whichever of this state's
		 * teardown and the first thread's figures runs first closes the window.
		 */
		final double figure(ThreadParams thread, IterationParams iteration, BenchmarkParams params) {
			if (thread.getThreadIndex() != 0 || iteration.getType() != IterationType.MEASUREMENT) {
				return 0;
			}
			return endWindow() * Figures.share(params);
		}

		private synchronized double endWindow() {
			if (Double.isNaN(this.perItem)) {
				this.commits.stop(this.admin, this.added.get() - this.addedBefore);
				this.perItem = this.commits.perItem();
				System.out.println(this.commits.line(contenderName() + " add by " + THREADS + " threads"));
			}
			return this.perItem;
		}

		@TearDown(Level.Iteration)
		public void end() {
			endWindow();
			this.queue.stop();
			this.admin.execute("TRUNCATE " + String.join(", ", this.contender.tables()));
		}

		@TearDown(Level.Trial)
		public void close() {
			this.contender.close();
			this.admin.close();
			PostgresAdmin.dropDatabase(this.database);
		}

	}

	@State(Scope.Benchmark)
	public static class Ours extends Adding {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Benchmark)
	public static class DbScheduler extends Adding {

		@Override
		String contenderName() {
			return "db-scheduler";
		}

	}

}
