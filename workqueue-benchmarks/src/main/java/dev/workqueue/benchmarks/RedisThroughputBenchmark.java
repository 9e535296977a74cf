package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
 * Issue 12: items per second end to end through a queue on Redis, {@code workers} workers
 * per JVM doing get then done, on 1 JVM and on 3.
 * <p>
 * <b>Workload.</b> {@code producers} threads of the measured JVM (4 by default, issue 32;
 * 2 in the runs of issues 12 to 22) add distinct items one call at a time, staying at
 * most {@value #BACKLOG} items ahead of the items processed (by every JVM), so the queue
 * in Redis stays short. With {@code jvms=3}, the measured JVM starts 2 more JVMs
 * ({@link WorkerJvm}, the benchmark jar's class path) with {@code workers} workers each
 * on the same queue; they report each item they process to the measured JVM over their
 * standard output, a few milliseconds late. The pipeline runs for the whole trial
 * (warm-up included); an invocation waits for {@value #BATCH} more items to be processed,
 * wherever, so the score is the steady processing rate of all workers together, in items
 * per second. The warm-up is long (18 s) because the other JVMs start with the trial and
 * warm up only as the pipeline runs: after 6 s the JIT compiler of one of them still took
 * 0.22 of the machine's 2 cores ({@code /proc}), after 18 s 0.06.
 * <p>
 * At the end of each trial a line gives the Redis commands per item processed over its
 * measured iterations ({@link CommandProfile}: {@code INFO commandstats} at each
 * iteration's start and end, so the producers' adds count as well as the workers' get and
 * done, and whatever other clients of a shared server sent meanwhile). Auxiliary counters
 * per measured iteration: {@code commandsPerItem}, {@code redisCpuMicrosPerItem} and
 * {@code backlog} (items added and not yet processed, on average, of at most
 * {@value #BACKLOG}: near 0 the producers' add round trips set the rate, not the workers;
 * {@link BacklogSamples}).
 * <p>
 * Contenders: ours ({@code buildQueue()}: each item is deduplicated, leased, renewed
 * while held and fenced on done) and Redisson's {@code RBlockingQueue} (RPUSH, then BLPOP
 * by {@code take}; nothing else: no dedup, no lease, at most once).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(value = 2, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisThroughputBenchmark {

	static final int BACKLOG = 1_000;

	static final int BATCH = 500;

	static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

	@Benchmark
	@OperationsPerInvocation(BATCH)
	public void endToEnd_ours(Ours pipeline) throws InterruptedException {
		pipeline.awaitBatch();
	}

	@Benchmark
	@OperationsPerInvocation(BATCH)
	public void endToEnd_oursPriority(OursPriority pipeline) throws InterruptedException {
		pipeline.awaitBatch();
	}

	@Benchmark
	@OperationsPerInvocation(BATCH)
	public void endToEnd_redisson(Redisson pipeline) throws InterruptedException {
		pipeline.awaitBatch();
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Server {

		public double commandsPerItem;

		public double redisCpuMicrosPerItem;

		/** Items added and not yet processed, on average ({@link BacklogSamples}). */
		public double backlog;

	}

	/** The producers, the workers of every JVM and the shared queue of one trial. */
	@State(Scope.Thread)
	public abstract static class Pipeline {

		/** Workers per JVM. */
		@Param({ "1", "4", "16" })
		public int workers;

		/** Producer threads of the measured JVM. */
		@Param({ "4" })
		public int producers;

		/** JVMs with workers on the queue: the measured one and {@code jvms - 1} more. */
		@Param({ "1", "3" })
		public int jvms;

		private final Progress progress = new Progress();

		private final AtomicLong added = new AtomicLong();

		private final BacklogSamples backlog = new BacklogSamples();

		private final List<Thread> producerThreads = new ArrayList<>();

		private final List<WorkerJvm> otherJvms = new ArrayList<>();

		private final CommandProfile commands = new CommandProfile();

		private RedisAdmin admin;

		private long processedBefore;

		private long cpuMicrosBefore;

		private volatile boolean producing;

		private String name;

		private RedisContender contender;

		private RedisContender.Queue queue;

		private RedisWorkers localWorkers;

		abstract String contenderName();

		@Setup(Level.Trial)
		public void start() throws Exception {
			this.name = RedisAdmin.uniqueName("throughput");
			this.contender = RedisContender.named(contenderName());
			this.contender.open(this.name + "-jvm0");
			this.queue = this.contender.queue(this.name);
			this.admin = RedisAdmin.connect();
			this.localWorkers = RedisWorkers.start(this.queue, this.workers, this.progress);
			for (int i = 1; i < this.jvms; i++) {
				this.otherJvms.add(WorkerJvm.start(contenderName(), this.name, this.workers, this.name + "-jvm" + i,
						this.progress));
			}
			this.producing = true;
			for (int i = 0; i < this.producers; i++) {
				Thread producer = new Thread(this::produce, "redis-bench-producer-" + i);
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
				this.cpuMicrosBefore = this.admin.cpuMicros();
				this.commands.start(this.admin);
			}
		}

		@TearDown(Level.Iteration)
		public void endIteration(IterationParams params, Server figures, BenchmarkParams benchmark) {
			if (params.getType() == IterationType.MEASUREMENT) {
				long items = this.progress.count() - this.processedBefore;
				double commandsBefore = (this.commands.items() > 0) ? this.commands.perItem() * this.commands.items()
						: 0;
				this.commands.stop(this.admin, items);
				long cpuMicros = this.admin.cpuMicros() - this.cpuMicrosBefore;
				if (items > 0) {
					// The profile adds the windows up: this iteration's commands are the
					// growth.
					double commands = this.commands.perItem() * this.commands.items() - commandsBefore;
					double share = Figures.share(benchmark);
					figures.commandsPerItem = commands / items * share;
					figures.redisCpuMicrosPerItem = (double) cpuMicros / items * share;
					figures.backlog = this.backlog.mean() * share;
					System.out.printf(Locale.ROOT, "redis per item (%s): %.2f commands, %.1f µs of its CPU%n",
							contenderName(), commands / items, (double) cpuMicros / items);
				}
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
			StringBuilder shares = new StringBuilder("items processed: this JVM ")
				.append((this.localWorkers != null) ? this.localWorkers.processed() : 0);
			for (WorkerJvm jvm : this.otherJvms) {
				jvm.stop();
				shares.append(", JVM ").append(jvm.pid()).append(' ').append(jvm.processed());
			}
			System.out.println(shares);
			if (this.commands.items() > 0) {
				System.out.println(this.commands.line(contenderName() + ", " + this.producers + " producers, "
						+ this.workers + " workers x " + this.jvms + " JVMs, measured iterations"));
			}
			if (this.localWorkers != null) {
				this.localWorkers.stop();
			}
			if (this.contender != null) {
				this.contender.close();
			}
			if (this.admin != null) {
				this.admin.close();
			}
			try (RedisAdmin admin = RedisAdmin.connect()) {
				admin.deleteKeysContaining(this.name);
			}
		}

	}

	@State(Scope.Benchmark)
	public static class Ours extends Pipeline {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	/** Our priority queue (issue 21: at least 0.8 times the plain queue's rate). */
	@State(Scope.Benchmark)
	public static class OursPriority extends Pipeline {

		@Override
		String contenderName() {
			return "ours-priority";
		}

	}

	@State(Scope.Benchmark)
	public static class Redisson extends Pipeline {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

}
