package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
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

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.postgres.PostgresWorkQueues;
import dev.workqueue.postgres.VacuumPolicy;
import dev.workqueue.spi.TraceContextSource;

/**
 * Issue 31 on PostgreSQL: what an add costs with trace context carried, on one thread,
 * each add a new item (the upsert's insert) committed on its own, no consumer. The queue
 * is built without a source ({@code none}), with a source that finds no span
 * ({@code noSpan}: an application with a tracer, adding outside any span), and with one
 * that always gives the starter's W3C context ({@code context}: the traced statement, its
 * bind and the context stored in the row).
 * <p>
 * Each trial runs in a database of its own ({@link PostgresAdmin}); the table is emptied
 * after each iteration. With {@code -Dworkqueue.bench.postgres.statements=true} (passed
 * to the fork: {@code -jvmArgsAppend}) every iteration prints the statements per add by
 * kind ({@link StatementCounts}: the counting proxies allocate, so take the bytes per
 * operation from a run without it), and always the database's commits per add
 * ({@link CommitProfile}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class PostgresTraceContextBenchmark {

	private static final String TABLE = "wqbench_trace";

	@Benchmark
	public void add(Adding adding) {
		adding.queue.add("item-" + adding.added++);
	}

	/** One queue on a database of the trial's own. */
	@State(Scope.Thread)
	public static class Adding {

		@Param({ "none", "noSpan", "context" })
		public String source;

		private final StatementCounts statements = new StatementCounts();

		private final CommitProfile commits = new CommitProfile();

		private String database;

		private PostgresAdmin admin;

		private HikariDataSource pool;

		private DelayingQueue<String> queue;

		private long added;

		private long addedBefore;

		@Setup(Level.Trial)
		public void open() {
			this.database = PostgresAdmin.createDatabase();
			this.admin = PostgresAdmin.connect(this.database);
			this.admin.execute(PostgresWorkQueues.schema(TABLE));
			this.pool = PostgresContender.pool(this.database, "wqbench-trace");
			TraceContextSource source = switch (this.source) {
				case "none" -> null;
				case "noSpan" -> () -> null;
				case "context" -> () -> TraceContextBenchmark.CONTEXT;
				default -> throw new IllegalArgumentException("source " + this.source);
			};
			this.queue = PostgresWorkQueues.builder(this.statements.wrap(this.pool), ItemCodec.strings())
				.name("trace")
				.table(TABLE)
				.listen(false)
				.vacuum(VacuumPolicy.NEVER)
				.traceContextSource(source)
				.buildDelayingQueue();
		}

		@Setup(Level.Iteration)
		public void begin() {
			this.addedBefore = this.added;
			this.commits.start(this.admin);
		}

		@TearDown(Level.Iteration)
		public void end() {
			long items = this.added - this.addedBefore;
			this.commits.stop(this.admin, items);
			System.out.println(this.commits.line("add, source " + this.source));
			String statements = this.statements.perItem(this.added);
			if (!statements.isEmpty()) {
				System.out.println("statements per add (source " + this.source + ", whole trial): " + statements);
			}
			this.commits.reset();
			this.admin.execute("TRUNCATE " + TABLE);
		}

		@TearDown(Level.Trial)
		public void close() {
			this.queue.shutDown();
			this.pool.close();
			this.admin.close();
			PostgresAdmin.dropDatabase(this.database);
		}

	}

}
