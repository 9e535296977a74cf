package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Issue 30: items per second end to end through a queue on PostgreSQL, {@code producers}
 * producer threads (4 by default) and {@value #WORKERS} workers per JVM, on 1 JVM and on
 * 3, with the commits per item and the connections it took.
 * <p>
 * <b>Workload.</b> As {@link RedisThroughputBenchmark}: the producers of the measured JVM
 * add distinct items one call at a time, staying at most {@value #BACKLOG} items ahead of
 * the items processed (by every JVM); with {@code jvms=3}, the measured JVM starts 2 more
 * JVMs ({@link PostgresWorkerMain}) with {@value #WORKERS} workers each on the same
 * queue, each with its own pool. The pipeline runs for the whole trial; an invocation
 * waits for {@value #BATCH} more items processed, wherever, so the score is the steady
 * rate of all workers together, in items per second. The warm-up is long (20 s) because
 * the other JVMs start with the trial and warm up only as the pipeline runs: after 5 s
 * their JIT compiler still took 0.21 cores in one of them ({@code /proc}), after 20 s
 * 0.06. Each trial runs in a database of its own ({@link PostgresAdmin}), dropped at its
 * end.
 * <p>
 * <b>Auxiliary counters</b> (see {@link Figures}), per measured iteration:
 * {@code commitsPerItem} ({@code xact_commit} of the database over the iteration, every
 * JVM's adds, claims, dones and housekeeping, per item processed; read while the pipeline
 * runs, so off by under a second of commits at each end: see {@link PostgresAdmin}) and
 * {@code connections} (client connections on the database at the iteration's end, every
 * JVM's, the measurement's own left out; each JVM's pool has
 * {@value PostgresContender#POOL_SIZE}) and {@code backlog} (items added and not yet
 * processed, on average, of at most {@value #BACKLOG}: near 0 the producers' add commits
 * set the rate, not the workers; {@link BacklogSamples}).
 * <p>
 * Contenders: ours (a rate-limiting queue; each item deduplicated, leased, fenced; done
 * with the next claim) and db-scheduler (one-time tasks, lock-and-fetch; see
 * {@link DbSchedulerContender}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class PostgresThroughputBenchmark {

	static final int WORKERS = 16;

	static final int BACKLOG = 1_000;

	static final int BATCH = 200;

	static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

	@Benchmark
	@OperationsPerInvocation(BATCH)
	public void endToEnd_ours(Ours pipeline) throws InterruptedException {
		pipeline.awaitBatch();
	}

	@Benchmark
	@OperationsPerInvocation(BATCH)
	public void endToEnd_dbScheduler(DbScheduler pipeline) throws InterruptedException {
		pipeline.awaitBatch();
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Database {

		public double commitsPerItem;

		public double connections;

		/** Items added and not yet processed, on average ({@link BacklogSamples}). */
		public double backlog;

	}

	/** The producers, the workers of every JVM and the shared queue of one trial. */
	@State(Scope.Thread)
	public abstract static class Pipeline {

		/** JVMs with workers on the queue: the measured one and {@code jvms - 1} more. */
		@Param({ "1", "3" })
		public int jvms;

		/** Producer threads of the measured JVM. */
		@Param({ "4" })
		public int producers;

		private final Progress progress = new Progress();

		private final AtomicLong added = new AtomicLong();

		private final BacklogSamples backlog = new BacklogSamples();

		private final List<Thread> producerThreads = new ArrayList<>();

		private final List<WorkerJvm> otherJvms = new ArrayList<>();

		private final CommitProfile commits = new CommitProfile();

		private String database;

		private PostgresAdmin admin;

		private long processedBefore;

		private volatile boolean producing;

		private PostgresContender contender;

		private PostgresContender.Queue queue;

		private PostgresContender.Consumers localWorkers;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void start() throws Exception {
			this.database = PostgresAdmin.createDatabase();
			this.admin = PostgresAdmin.connect(this.database);
			this.contender = PostgresContender.named(contenderName());
			this.contender.install(this.admin);
			this.contender.open(this.database, "wqbench-jvm0");
			String name = "throughput";
			this.queue = this.contender.queue(name);
			this.localWorkers = this.queue.consume(WORKERS, (item) -> this.progress.add(1), this.progress::fail);
			for (int i = 1; i < this.jvms; i++) {
				this.otherJvms.add(PostgresWorkerMain.start(contenderName(), this.database, name, WORKERS,
						"wqbench-jvm" + i, this.progress, null));
			}
			this.producing = true;
			for (int i = 0; i < this.producers; i++) {
				Thread producer = new Thread(this::produce, "pg-bench-producer-" + i);
				producer.setDaemon(true);
				this.producerThreads.add(producer);
				producer.start();
			}
		}

		private void produce() {
			try {
				while (this.producing) {
					long next = this.added.get();
					if (next - this.progress.count() >= BACKLOG) {
						this.progress.awaitAtLeast(next - BACKLOG + 1, TimeUnit.MILLISECONDS.toNanos(100));
					}
					else if (this.added.compareAndSet(next, next + 1)) {
						this.queue.add("item-" + next);
					}
				}
			}
			catch (InterruptedException ex) {
				// Stopped.
			}
			catch (RuntimeException ex) {
				if (this.producing) {
					this.progress.fail(ex);
				}
			}
		}

		@Setup(Level.Iteration)
		public void beginIteration(IterationParams params) {
			if (params.getType() == IterationType.MEASUREMENT) {
				this.processedBefore = this.progress.count();
				this.backlog.reset();
				this.commits.reset();
				this.commits.start(this.admin);
			}
		}

		@TearDown(Level.Iteration)
		public void endIteration(IterationParams params, Database figures, BenchmarkParams benchmark) {
			if (params.getType() == IterationType.MEASUREMENT) {
				long items = this.progress.count() - this.processedBefore;
				this.commits.stop(this.admin, items);
				double share = Figures.share(benchmark);
				figures.commitsPerItem = this.commits.perItem() * share;
				figures.connections = this.admin.connections() * share;
				figures.backlog = this.backlog.mean() * share;
				System.out
					.println(this.commits.line(contenderName() + ", " + WORKERS + " workers x " + this.jvms + " JVMs")
							+ "; connections " + this.admin.connections());
			}
		}

		final void awaitBatch() throws InterruptedException {
			long target = this.progress.count() + BATCH;
			if (!this.progress.awaitAtLeast(target, STALL_NANOS)) {
				throw new IllegalStateException("no " + BATCH + " items processed in 30 s: " + this.progress.count()
						+ " processed, " + this.added.get() + " added");
			}
			this.backlog.sample(this.added.get() - this.progress.count());
		}

		@TearDown(Level.Trial)
		public void stop() throws Exception {
			this.producing = false;
			for (Thread producer : this.producerThreads) {
				producer.join(10_000);
			}
			StringBuilder shares = new StringBuilder("items processed: ").append(this.progress.count());
			for (WorkerJvm jvm : this.otherJvms) {
				jvm.stop();
				shares.append(", JVM ").append(jvm.pid()).append(' ').append(jvm.processed());
			}
			System.out.println(shares);
			if (this.localWorkers != null) {
				this.localWorkers.stop();
			}
			if (this.queue != null) {
				this.queue.stop();
			}
			if (this.contender != null) {
				String statements = this.contender.statementsPerItem(this.progress.count());
				if (!statements.isEmpty()) {
					System.out.println("statements per item run by the measured JVM (" + this.progress.count()
							+ " items processed in all): " + statements);
				}
				this.contender.close();
			}
			if (this.admin != null) {
				this.admin.close();
			}
			if (this.database != null) {
				PostgresAdmin.dropDatabase(this.database);
			}
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Pipeline {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class DbScheduler extends Pipeline {

		@Override
		String contenderName() {
			return "db-scheduler";
		}

	}

}
