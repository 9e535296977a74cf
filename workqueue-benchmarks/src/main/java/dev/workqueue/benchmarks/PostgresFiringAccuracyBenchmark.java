package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 30: firing accuracy of delays kept in PostgreSQL, with W4's log and figures
 * ({@link FiringAccuracyBenchmark.Accuracy}): {@value #ITEMS} items scheduled with delays
 * spread uniformly over 10 s (the same fixed-seed sequence for both sides) by
 * {@value #ADDERS} threads, one call each, and {@value #CONSUMERS} consumers of the same
 * JVM logging each arrival.
 * <p>
 * An item's due time is taken on {@link System#nanoTime()} just before its add call: an
 * item that arrives before it is {@code early}. Items not received
 * {@value #GRACE_SECONDS} s after the last due time are {@code lost}. Each iteration has
 * a fresh queue and pool; it prints its commits per item (the database's
 * {@code xact_commit} until the pool has closed, exact; see {@link PostgresAdmin}).
 * <p>
 * Contenders: ours ({@code addAfter}; consumers wake when the earliest delay falls due)
 * and db-scheduler ({@code scheduleIfNotExists} at now plus the delay; its schedulers
 * poll).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class PostgresFiringAccuracyBenchmark {

	static final int ITEMS = 10_000;

	static final int ADDERS = 16;

	static final int CONSUMERS = 16;

	static final Duration[] DELAYS = Keys.delays(ITEMS, Duration.ofMillis(1), Duration.ofSeconds(10));

	static final long[] DELAY_NANOS = Keys.nanos(DELAYS);

	static final long GRACE_SECONDS = 5;

	static final String[] NAMES = PostgresBacklogBenchmark.names(ITEMS);

	@Benchmark
	public void delays_ours(Ours queue, FiringAccuracyBenchmark.Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		queue.run(accuracy, params);
	}

	@Benchmark
	public void delays_dbScheduler(DbScheduler queue, FiringAccuracyBenchmark.Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		queue.run(accuracy, params);
	}

	/**
	 * A delaying queue whose consumers log each item's arrival, fresh for each iteration.
	 */
	public abstract static class Delays {

		private String database;

		private PostgresAdmin admin;

		private int iteration;

		private PostgresContender contender;

		private PostgresContender.Queue queue;

		private PostgresContender.Consumers consumers;

		private FiringLog log;

		private final AtomicReference<Throwable> failure = new AtomicReference<>();

		abstract String contenderName();

		@Setup(Level.Trial)
		public void open() {
			this.database = PostgresAdmin.createDatabase();
			this.admin = PostgresAdmin.connect(this.database);
			PostgresContender.named(contenderName()).install(this.admin);
		}

		@Setup(Level.Iteration)
		public void begin() {
			this.admin.execute("TRUNCATE " + String.join(", ", PostgresContender.named(contenderName()).tables()));
			FiringLog log = new FiringLog(ITEMS);
			this.log = log;
			this.contender = PostgresContender.named(contenderName());
			this.contender.open(this.database, "wqbench-delays");
			this.queue = this.contender.queue("delays-" + this.iteration++);
			// Several consumers log into one log: its firing side takes one at a time.
			this.consumers = this.queue.consume(CONSUMERS, (item) -> {
				synchronized (log) {
					log.fired(Integer.parseInt(item, "item-".length(), item.length(), 10));
				}
			}, (ex) -> this.failure.compareAndSet(null, ex));
		}

		final void run(FiringAccuracyBenchmark.Accuracy accuracy, BenchmarkParams params) throws InterruptedException {
			CommitProfile commits = new CommitProfile();
			commits.start(this.admin);
			GcTotals before = GcTotals.now();
			List<Thread> adders = new ArrayList<>();
			for (int a = 0; a < ADDERS; a++) {
				int first = a;
				Thread adder = new Thread(() -> {
					try {
						for (int i = first; i < ITEMS; i += ADDERS) {
							this.log.scheduling(i, DELAY_NANOS[i]);
							this.queue.addAfter(NAMES[i], DELAYS[i]);
						}
					}
					catch (RuntimeException ex) {
						this.failure.compareAndSet(null, ex);
					}
				}, "pg-bench-adder-" + a);
				adders.add(adder);
				adder.start();
			}
			for (Thread adder : adders) {
				adder.join();
			}
			this.log.awaitAll(TimeUnit.SECONDS.toNanos(GRACE_SECONDS));
			end();
			commits.stop(this.admin, ITEMS);
			if (this.failure.get() != null) {
				throw new IllegalStateException("failed: " + this.failure.get(), this.failure.get());
			}
			synchronized (this.log) {
				this.log.report(accuracy, Figures.share(params), GcTotals.now().since(before));
				FiringLog.Summary summary = this.log.summary();
				System.out.printf(
						"%s: early %d, lost %d, duplicates %d, lateness p50 %.1f ms, p99 %.1f ms, max %.1f ms; %s%n",
						contenderName(), summary.early(), summary.lost(), summary.duplicates(),
						summary.p50LatenessNanos() / 1e6, summary.p99LatenessNanos() / 1e6,
						summary.maxLatenessNanos() / 1e6, commits.line(contenderName() + " delays"));
			}
		}

		/**
		 * Stops the consumers and closes the pool, then waits for its backends to exit.
		 * @throws InterruptedException if interrupted
		 */
		@TearDown(Level.Iteration)
		public void end() throws InterruptedException {
			if (this.consumers == null) {
				return;
			}
			this.consumers.stop();
			this.consumers = null;
			this.queue.stop();
			this.contender.close();
			this.admin.awaitNoClients();
		}

		@TearDown(Level.Trial)
		public void close() {
			this.admin.close();
			PostgresAdmin.dropDatabase(this.database);
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Delays {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class DbScheduler extends Delays {

		@Override
		String contenderName() {
			return "db-scheduler";
		}

	}

}
