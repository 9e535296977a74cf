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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Timeout;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 30: the size of a queue's table, indexes included
 * ({@code pg_total_relation_size}), after {@code items} items went through one queue,
 * beside its size when new with the same {@code live} items, on a server with
 * {@code autovacuum = off} (this one: every dead row stays until someone vacuums).
 * <p>
 * <b>Workload.</b> In a fresh database, {@code live} items are added to a new queue and
 * the table's size taken ({@code newBytes}). Then {@value #PRODUCERS} producers add
 * distinct items, staying {@code live} ahead of the {@value #WORKERS} workers (ours:
 * threads with their pollers; db-scheduler: a scheduler of as many threads), until
 * {@code items} more have been added; once the workers have processed {@code items} they
 * are stopped and the pool closed, and the size is taken again ({@code afterBytes}) with
 * about {@code live} items left. The issue asks for at most 3×.
 * <p>
 * <b>Figures</b> (auxiliary counters; one iteration): {@code newBytes},
 * {@code afterBytes}, {@code ratio}, {@code rowsLeft}, {@code deadRows}
 * ({@code n_dead_tup} at the end), and the run's {@code itemsPerSecond} with its
 * {@code commitsPerItem} (exact: read after the pool closed, see {@link PostgresAdmin}).
 * The primary score, the run's duration, means nothing.
 * <p>
 * Contenders: ours with its own vacuuming (the default: the queue vacuums its table
 * itself where autovacuum is off), ours without it ({@code VacuumPolicy.NEVER}: the table
 * is left to autovacuum, as db-scheduler leaves its own) and db-scheduler.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
// A run takes minutes: JMH's default limit of an iteration (10 minutes) is too short.
@Timeout(time = 90, timeUnit = TimeUnit.MINUTES)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class PostgresTableSizeBenchmark {

	static final int PRODUCERS = 4;

	static final int WORKERS = 16;

	static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

	@Benchmark
	public void size_ours(Ours table, Size size, BenchmarkParams params) throws InterruptedException {
		table.run(size, params);
	}

	@Benchmark
	public void size_oursNoVacuum(OursNoVacuum table, Size size, BenchmarkParams params) throws InterruptedException {
		table.run(size, params);
	}

	@Benchmark
	public void size_dbScheduler(DbScheduler table, Size size, BenchmarkParams params) throws InterruptedException {
		table.run(size, params);
	}

	/** The figures of the run. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Size {

		public double newBytes;

		public double afterBytes;

		public double ratio;

		public double rowsLeft;

		public double deadRows;

		public double itemsPerSecond;

		public double commitsPerItem;

	}

	/** One queue's table through a long run. */
	@State(Scope.Thread)
	public abstract static class Table {

		/** Items through the queue after the first {@code live}. */
		@Param({ "1000000" })
		public int items;

		/** Items queued at any time. */
		@Param({ "10000" })
		public int live;

		private final Progress progress = new Progress();

		private final AtomicLong added = new AtomicLong();

		private String database;

		private PostgresAdmin admin;

		private PostgresContender contender;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void open() {
			this.database = PostgresAdmin.createDatabase();
			this.admin = PostgresAdmin.connect(this.database);
			this.contender = PostgresContender.named(contenderName());
			this.contender.install(this.admin);
		}

		final void run(Size size, BenchmarkParams params) throws InterruptedException {
			String table = this.contender.tables().get(0);
			this.contender.open(this.database, "wqbench-size");
			PostgresContender.Queue queue = this.contender.queue("size");
			List<String> first = new ArrayList<>();
			for (int i = 0; i < this.live; i++) {
				first.add("item-" + this.added.getAndIncrement());
			}
			queue.addAll(first);
			long newBytes = this.admin.totalRelationSize(table);
			CommitProfile commits = new CommitProfile();
			commits.start(this.admin);
			long startNanos = System.nanoTime();
			PostgresContender.Consumers workers = queue.consume(WORKERS, (item) -> this.progress.add(1),
					this.progress::fail);
			long last = this.live + (long) this.items;
			List<Thread> producers = new ArrayList<>();
			for (int p = 0; p < PRODUCERS; p++) {
				Thread producer = new Thread(() -> produce(queue, last), "pg-bench-producer-" + p);
				producer.setDaemon(true);
				producers.add(producer);
				producer.start();
			}
			long reported = 0;
			while (!this.progress.awaitAtLeast(this.items, TimeUnit.SECONDS.toNanos(10))) {
				long count = this.progress.count();
				if (count == reported) {
					throw new IllegalStateException("stalled at " + count + " items processed");
				}
				reported = count;
				System.out.printf("%d items processed, %.1f MB%n", count, this.admin.totalRelationSize(table) / 1e6);
			}
			long runNanos = System.nanoTime() - startNanos;
			for (Thread producer : producers) {
				producer.join();
			}
			workers.stop();
			queue.stop();
			String statements = this.contender.statementsPerItem(this.progress.count());
			if (!statements.isEmpty()) {
				System.out.println("statements per item: " + statements);
			}
			this.contender.close();
			this.admin.awaitNoClients();
			commits.stop(this.admin, this.progress.count());
			// The workers drained what the producers added last: add fresh items up to
			// the live count again, on a new pool, so that the size is taken with it.
			long missing = this.live - this.admin.rows(table);
			if (missing > 0) {
				List<String> refill = new ArrayList<>();
				for (long i = 0; i < missing; i++) {
					refill.add("item-" + this.added.getAndIncrement());
				}
				this.contender.open(this.database, "wqbench-size-refill");
				PostgresContender.Queue refilled = this.contender.queue("size");
				refilled.addAll(refill);
				refilled.stop();
				this.contender.close();
				this.admin.awaitNoClients();
			}
			long afterBytes = this.admin.totalRelationSize(table);
			double share = Figures.share(params);
			size.newBytes = newBytes * share;
			size.afterBytes = afterBytes * share;
			size.ratio = (double) afterBytes / newBytes * share;
			size.rowsLeft = this.admin.rows(table) * share;
			size.deadRows = this.admin.deadRows(table) * share;
			size.itemsPerSecond = this.progress.count() * 1e9 / runNanos * share;
			size.commitsPerItem = commits.perItem() * share;
			System.out.printf(
					"%s: %d items through, new %.2f MB with %d live, after %.2f MB (%.2fx), %d rows left,"
							+ " %d dead; %.0f items/s; %s%n",
					contenderName(), this.progress.count(), newBytes / 1e6, this.live, afterBytes / 1e6,
					(double) afterBytes / newBytes, this.admin.rows(table), this.admin.deadRows(table),
					this.progress.count() * 1e9 / runNanos, commits.line(contenderName() + " long run"));
		}

		private void produce(PostgresContender.Queue queue, long last) {
			try {
				while (true) {
					long next = this.added.get();
					if (next >= last) {
						return;
					}
					if (next - this.progress.count() >= this.live) {
						this.progress.awaitAtLeast(next - this.live + 1, TimeUnit.MILLISECONDS.toNanos(100));
					}
					else if (this.added.compareAndSet(next, next + 1)) {
						queue.add("item-" + next);
					}
				}
			}
			catch (InterruptedException ex) {
				// Stopped.
			}
			catch (RuntimeException ex) {
				this.progress.fail(ex);
			}
		}

		@TearDown(Level.Trial)
		public void close() {
			this.admin.close();
			PostgresAdmin.dropDatabase(this.database);
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Table {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class OursNoVacuum extends Table {

		@Override
		String contenderName() {
			return "ours-no-vacuum";
		}

	}

	@State(Scope.Thread)
	public static class DbScheduler extends Table {

		@Override
		String contenderName() {
			return "db-scheduler";
		}

	}

}
