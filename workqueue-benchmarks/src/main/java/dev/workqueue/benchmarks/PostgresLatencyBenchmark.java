package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 30: add→get latency on PostgreSQL at a paced {@value #RATE} adds per second, the
 * consumers in another instance (another JVM, its own pool and {@code LISTEN} connection)
 * waiting for work, or ({@code consumers=local}, issue 39) in the adding instance itself.
 * <p>
 * <b>Workload.</b> Each trial starts a consumer JVM ({@link PostgresWorkerMain},
 * {@value #CONSUMERS} consumers, logging each item as it is handed out), or with
 * {@code local} {@value #CONSUMERS} consumers on the producer's own queue object, and
 * opens a pool in the measured JVM, both kept for every iteration so that the warm-up
 * iteration warms them (a JVM started for each iteration measured its own JIT compilation
 * in the p99). Each iteration lets the consumers wait on the empty queue for a second,
 * then one thread adds {@value #ITEMS} distinct items, item {@code i} at {@code i / RATE}
 * s after the start, one call each. An item's latency runs from just before its
 * {@code add} call (so it includes the add's commit) to the moment a consumer has it,
 * both on {@link System#nanoTime()} (one clock for all processes of a Linux machine).
 * Items not received 2 s after the last add are lost.
 * <p>
 * <b>Figures</b> (auxiliary counters, see {@link Figures}), per iteration: latency p50,
 * p99 and max in microseconds, {@code lost}, and {@code commitsPerItem}: the database's
 * {@code xact_commit} from the first add to the last item's arrival, per item; it counts
 * what the waiting consumers cost while the queue is mostly empty. The backends run on,
 * so a window misses the commits they have not reported yet (under a second's worth, see
 * {@link PostgresAdmin}) and the next window counts them: the mean of the measured
 * iterations is the figure, not one iteration's. The primary score, the run's duration,
 * means nothing.
 * <p>
 * Contenders: ours (the consumers wait for {@code NOTIFY}) and db-scheduler (its
 * consumers poll; the adds of another instance cannot wake them).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class PostgresLatencyBenchmark {

	static final int RATE = 200;

	static final int ITEMS = 2_000;

	static final int CONSUMERS = 4;

	static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1) / RATE;

	static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

	@Benchmark
	public void addToGet_ours(Ours queue, Latency latency, BenchmarkParams params) throws InterruptedException {
		queue.run(latency, params);
	}

	@Benchmark
	public void addToGet_dbScheduler(DbScheduler queue, Latency latency, BenchmarkParams params)
			throws InterruptedException {
		queue.run(latency, params);
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Latency {

		public double p50Micros;

		public double p99Micros;

		public double maxMicros;

		public double lost;

		public double commitsPerItem;

	}

	/**
	 * A producer here and the consumers in another JVM or on the producer's queue object,
	 * on one queue for the whole trial; each iteration has a log of its own.
	 */
	@State(Scope.Thread)
	public abstract static class Paced {

		/**
		 * Where the consumers run: {@code remote}, another JVM; {@code local}, this one,
		 * on the producer's queue object.
		 */
		@Param({ "remote", "local" })
		public String consumers;

		private final Progress progress = new Progress();

		private String database;

		private PostgresAdmin admin;

		private WorkerJvm consumerJvm;

		private PostgresContender producer;

		private PostgresContender.Queue queue;

		/**
		 * The iteration's items: {@code item-<i>.<iteration>}, so that an item of an
		 * earlier iteration, should it come late, is neither counted in this one nor
		 * merged with this one's add of the same number.
		 */
		private String[] names;

		/** The iteration; read by the consumer JVM's reader thread. */
		private volatile int iteration;

		/** The iteration's log; read by the consumer JVM's reader thread. */
		private volatile FiringLog log;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void open() throws Exception {
			this.database = PostgresAdmin.createDatabase();
			this.admin = PostgresAdmin.connect(this.database);
			PostgresContender.named(contenderName()).install(this.admin);
			String name = "latency";
			boolean local = this.consumers.equals("local");
			if (!local) {
				this.consumerJvm = PostgresWorkerMain.start(contenderName(), this.database, name, CONSUMERS,
						"wqbench-consumers", this.progress, (line) -> {
							// got item-<i>.<iteration> <nanos>
							int space = line.indexOf(' ', 4);
							if (line.startsWith("got ") && space > 0) {
								got(line.substring("got ".length(), space), Long.parseLong(line.substring(space + 1)));
							}
							else {
								System.out.println("[consumer JVM] " + line);
							}
						});
			}
			this.producer = PostgresContender.named(contenderName());
			this.producer.open(this.database, "wqbench-producer");
			this.queue = this.producer.queue(name);
			if (local) {
				this.queue.consume(CONSUMERS, (item) -> {
					got(item, System.nanoTime());
					this.progress.add(1);
				}, this.progress::fail);
			}
		}

		/**
		 * A consumer was handed {@code item} ({@code item-<i>.<iteration>}) at
		 * {@code nanos}.
		 */
		private void got(String item, long nanos) {
			int dot = item.indexOf('.');
			if (item.startsWith("item-") && dot > 0
					&& Integer.parseInt(item, dot + 1, item.length(), 10) == this.iteration) {
				this.log.fired(Integer.parseInt(item, "item-".length(), dot, 10), nanos);
			}
		}

		@Setup(Level.Iteration)
		public void settle() {
			int iteration = this.iteration + 1;
			this.names = IntStream.range(0, ITEMS)
				.mapToObj((i) -> "item-" + i + "." + iteration)
				.toArray(String[]::new);
			this.iteration = iteration;
			this.log = new FiringLog(ITEMS);
			// The consumers have looked at the empty queue, and wait.
			PostgresAdmin.sleepMillis(1_000);
		}

		final void run(Latency latency, BenchmarkParams params) throws InterruptedException {
			CommitProfile commits = new CommitProfile();
			commits.start(this.admin);
			long startNanos = System.nanoTime();
			for (int i = 0; i < ITEMS; i++) {
				long atNanos = startNanos + i * PERIOD_NANOS;
				for (long waitNanos = atNanos - System.nanoTime(); waitNanos > 0; waitNanos = atNanos
						- System.nanoTime()) {
					LockSupport.parkNanos(waitNanos);
				}
				this.log.scheduling(i, 0);
				this.queue.add(this.names[i]);
			}
			this.log.awaitAll(GRACE_NANOS);
			commits.stop(this.admin, ITEMS);
			FiringLog.Summary summary = this.log.summary();
			double share = Figures.share(params);
			latency.p50Micros = FiringLog.micros(summary.p50LatenessNanos()) * share;
			latency.p99Micros = FiringLog.micros(summary.p99LatenessNanos()) * share;
			latency.maxMicros = FiringLog.micros(summary.maxLatenessNanos()) * share;
			latency.lost = summary.lost() * share;
			latency.commitsPerItem = commits.perItem() * share;
			System.out.printf("%s: p50 %.0f us, p99 %.0f us, max %.0f us, lost %d; %s%n", contenderName(),
					FiringLog.micros(summary.p50LatenessNanos()), FiringLog.micros(summary.p99LatenessNanos()),
					FiringLog.micros(summary.maxLatenessNanos()), summary.lost(),
					commits.line(contenderName() + " at " + RATE + " adds/s"));
		}

		/**
		 * Stops the consumer JVM and closes the producer's pool, waits for their backends
		 * to exit, and drops the trial's database.
		 * @throws InterruptedException if interrupted
		 */
		@TearDown(Level.Trial)
		public void close() throws InterruptedException {
			if (this.consumerJvm != null) {
				this.consumerJvm.stop();
			}
			if (this.queue != null) {
				this.queue.stop();
				String statements = this.producer.statementsPerItem(this.progress.count());
				if (!statements.isEmpty()) {
					System.out.println("statements per item run by the producer: " + statements);
				}
				this.producer.close();
			}
			this.admin.awaitNoClients();
			this.admin.close();
			PostgresAdmin.dropDatabase(this.database);
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Paced {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class DbScheduler extends Paced {

		@Override
		String contenderName() {
			return "db-scheduler";
		}

	}

}
