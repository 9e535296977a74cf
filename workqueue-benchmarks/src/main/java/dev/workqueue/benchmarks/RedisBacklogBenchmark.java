package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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
 * Issue 22: items per second of {@value #WORKERS} workers draining a backlog of
 * {@value #ITEMS} items from a queue on Redis (the figures of the BullMQ script beside
 * it: {@value #ITEMS} jobs, concurrency {@value #WORKERS}).
 * <p>
 * <b>Workload.</b> Before each invocation, not measured, a fresh queue (a new name) is
 * filled with {@value #ITEMS} distinct items by {@value #FILLERS} threads, each calling
 * the contender's own {@code add} one item at a time. The invocation then starts
 * {@value #WORKERS} worker threads ({@link RedisWorkers}: get, then done, no work) and
 * ends when they have processed all {@value #ITEMS} items; the workers are stopped and
 * the queue's keys deleted after it. The teardown fails the run unless exactly
 * {@value #ITEMS} items were processed. The score is items per second
 * ({@code @OperationsPerInvocation}); an iteration runs at least one invocation, each on
 * a fresh backlog, and JMH counts only the invocations' own time.
 * <p>
 * The auxiliary counters (see {@link Figures}) are Redis commands per item processed,
 * from {@code INFO commandstats} just before and just after each invocation
 * ({@link CommandProfile}): {@code commandsPerItem} (every command, those run by a script
 * included) and {@code evalshaPerItem}; each iteration also prints its top commands per
 * item, for the drain and for the fill. {@code redisCpuMicrosPerItem} is Redis's own CPU
 * ({@code INFO cpu}, user and system) over the same windows, per item, and
 * {@code switchesPerItem} this JVM's context switches ({@link ContextSwitches}) over
 * them, read before the workers stop, per item: the thread hand-offs a drain costs. The
 * server is shared: other clients' commands count too.
 * <p>
 * Contenders: ours ({@code buildQueue()}: each item leased when handed out, the lease
 * renewed while held and fenced on done) and Redisson's {@code RBlockingQueue} (BLPOP by
 * {@code take}; no lease, at most once).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(RedisBacklogBenchmark.ITEMS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 2, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisBacklogBenchmark {

	static final int ITEMS = 20_000;

	static final int WORKERS = 16;

	static final int FILLERS = 8;

	static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

	static final String[] NAMES = names(ITEMS);

	@Benchmark
	public void drain_ours(Ours backlog) throws InterruptedException {
		backlog.drain();
	}

	@Benchmark
	public void drain_redisson(Redisson backlog) throws InterruptedException {
		backlog.drain();
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Commands {

		public double commandsPerItem;

		public double evalshaPerItem;

		public double switchesPerItem;

		public double redisCpuMicrosPerItem;

	}

	/** A queue filled with a fresh backlog before each invocation. */
	public abstract static class Filled {

		private final CommandProfile profile = new CommandProfile();

		private final CommandProfile fillProfile = new CommandProfile();

		private RedisContender contender;

		private RedisAdmin admin;

		private String name;

		private RedisContender.Queue queue;

		private Progress progress;

		private RedisWorkers workers;

		/** The JVM's context switches during this iteration's drains, and their items. */
		private double switches;

		private long drained;

		private ContextSwitches switchesFrom;

		/** Redis's own CPU during this iteration's drains. */
		private long cpuMicros;

		private long cpuMicrosBefore;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void open() {
			this.contender = RedisContender.named(contenderName());
			this.contender.open(RedisAdmin.uniqueName("client"));
			this.admin = RedisAdmin.connect();
		}

		@Setup(Level.Iteration)
		public void beginIteration() {
			this.profile.reset();
			this.fillProfile.reset();
			this.switches = 0;
			this.drained = 0;
			this.cpuMicros = 0;
		}

		@Setup(Level.Invocation)
		public void fill() throws InterruptedException {
			this.name = RedisAdmin.uniqueName("backlog");
			this.queue = this.contender.queue(this.name);
			this.progress = new Progress();
			this.workers = null;
			RedisContender.Queue queue = this.queue;
			AtomicReference<RuntimeException> failure = new AtomicReference<>();
			List<Thread> fillers = new ArrayList<>();
			this.fillProfile.start(this.admin);
			for (int f = 0; f < FILLERS; f++) {
				int first = f;
				Thread filler = new Thread(() -> {
					try {
						for (int i = first; i < ITEMS; i += FILLERS) {
							queue.add(NAMES[i]);
						}
					}
					catch (RuntimeException ex) {
						failure.compareAndSet(null, ex);
					}
				}, "redis-bench-filler-" + f);
				fillers.add(filler);
				filler.start();
			}
			for (Thread filler : fillers) {
				filler.join();
			}
			this.fillProfile.stop(this.admin, ITEMS);
			if (failure.get() != null) {
				throw failure.get();
			}
			this.profile.start(this.admin);
			this.switchesFrom = ContextSwitches.start();
			this.cpuMicrosBefore = this.admin.cpuMicros();
		}

		final void drain() throws InterruptedException {
			this.workers = RedisWorkers.start(this.queue, WORKERS, this.progress);
			if (!this.progress.awaitAtLeast(ITEMS, STALL_NANOS)) {
				throw new IllegalStateException("the backlog was not drained in 60 s: " + this.progress.count() + " of "
						+ ITEMS + " processed");
			}
		}

		@TearDown(Level.Invocation)
		public void end(Commands commands, BenchmarkParams params) throws InterruptedException {
			if (this.workers == null) {
				this.queue.stop();
			}
			else {
				// Read while the workers are alive: a thread that ends takes its count.
				this.switches += this.switchesFrom.sinceStart();
				this.cpuMicros += this.admin.cpuMicros() - this.cpuMicrosBefore;
				this.drained += ITEMS;
				this.profile.stop(this.admin, ITEMS);
				this.workers.stop();
			}
			this.admin.deleteKeysContaining(this.name);
			double share = Figures.share(params);
			commands.commandsPerItem = this.profile.perItem() * share;
			commands.evalshaPerItem = this.profile.perItem("evalsha") * share;
			commands.switchesPerItem = (this.drained == 0) ? 0 : this.switches / this.drained * share;
			commands.redisCpuMicrosPerItem = (this.drained == 0) ? 0 : (double) this.cpuMicros / this.drained * share;
			if (this.workers != null && this.workers.processed() != ITEMS) {
				throw new IllegalStateException(
						"expected " + ITEMS + " items processed, counted " + this.workers.processed());
			}
		}

		@TearDown(Level.Iteration)
		public void endIteration() {
			System.out.println(this.profile.line(contenderName() + " drain by " + WORKERS + " workers"));
			System.out.println(this.fillProfile.line(contenderName() + " fill by " + FILLERS + " threads"));
		}

		@TearDown(Level.Trial)
		public void close() {
			this.contender.close();
			this.admin.close();
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
	public static class Redisson extends Filled {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

	private static String[] names(int count) {
		String[] items = new String[count];
		for (int i = 0; i < count; i++) {
			items[i] = "item-" + i;
		}
		return items;
	}

}
