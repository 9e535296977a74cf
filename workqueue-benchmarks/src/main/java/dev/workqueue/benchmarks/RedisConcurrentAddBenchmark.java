package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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

/**
 * Issue 39: adds per second of {@value #THREADS} threads adding distinct items to one
 * queue object on Redis, one call at a time each, every call returning once Redis has
 * answered; no consumer. The threads share the queue object, as an application's threads
 * share its queue bean, so that ours can group their calls.
 * <p>
 * <b>Workloads.</b> {@code addAfter}: each item delayed by a minute (so nothing falls due
 * during an iteration), as retries are ({@code addRateLimited} ends in an
 * {@code addAfter}); ours' {@code buildDelayingQueue()} against Redisson's
 * {@code RDelayedQueue.offer}. {@code priorityAdd}: ours' priority queue, each item at
 * one of eight priorities from its hash; its peer is Redisson's plain {@code add} (one
 * {@code RPUSH}: no priority, no deduplication), for scale. Each iteration has a fresh
 * queue (a new name), whose keys are deleted when it ends. The score is adds per second
 * of all the threads together.
 * <p>
 * Each iteration prints its Redis commands per add, from {@code INFO commandstats} before
 * and after it ({@link CommandProfile}): every command, those run by a script included,
 * and the top commands; and Redis's own CPU time per add ({@code INFO cpu}). The server
 * is shared: other clients' commands and CPU count too.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Threads(RedisConcurrentAddBenchmark.THREADS)
@Fork(value = 2, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisConcurrentAddBenchmark {

	static final int THREADS = 4;

	static final Duration DELAY = Duration.ofMinutes(1);

	@Benchmark
	public void addAfter_ours(OursDelaying adding) {
		adding.queue.addAfter(adding.next(), DELAY);
	}

	@Benchmark
	public void addAfter_redisson(RedissonDelaying adding) {
		adding.queue.addAfter(adding.next(), DELAY);
	}

	@Benchmark
	public void priorityAdd_ours(OursPriority adding) {
		adding.queue.add(adding.next());
	}

	@Benchmark
	public void priorityAdd_redisson(RedissonPlain adding) {
		adding.queue.add(adding.next());
	}

	/** One queue object for all the threads, fresh for each iteration. */
	public abstract static class Adding {

		private final String contenderName;

		private final String workload;

		private final boolean delaying;

		private final CommandProfile profile = new CommandProfile();

		private final AtomicLong added = new AtomicLong();

		private RedisContender contender;

		private RedisAdmin admin;

		private String name;

		private long addedBefore;

		private long cpuMicrosBefore;

		RedisContender.Queue queue;

		/**
		 * Names the side and the workload.
		 * @param contenderName the side ({@link RedisContender#named})
		 * @param workload what the threads call, as the iteration's lines name it
		 * @param delaying whether the queue is a delaying queue
		 */
		Adding(String contenderName, String workload, boolean delaying) {
			this.contenderName = contenderName;
			this.workload = workload;
			this.delaying = delaying;
		}

		@Setup(Level.Trial)
		public void open() {
			this.contender = RedisContender.named(this.contenderName);
			this.contender.open(RedisAdmin.uniqueName("client"));
			this.admin = RedisAdmin.connect();
		}

		@Setup(Level.Iteration)
		public void begin() {
			this.name = RedisAdmin.uniqueName("concurrent-add");
			this.queue = this.delaying ? this.contender.delayingQueue(this.name) : this.contender.queue(this.name);
			this.profile.reset();
			this.addedBefore = this.added.get();
			this.profile.start(this.admin);
			this.cpuMicrosBefore = this.admin.cpuMicros();
		}

		final String next() {
			return "item-" + this.added.getAndIncrement();
		}

		@TearDown(Level.Iteration)
		public void end() {
			long cpuMicros = this.admin.cpuMicros() - this.cpuMicrosBefore;
			long items = this.added.get() - this.addedBefore;
			this.profile.stop(this.admin, items);
			System.out
				.println(this.profile.line(this.contenderName + " " + this.workload + " by " + THREADS + " threads"));
			System.out.printf(Locale.ROOT, "redis CPU per item (%s %s): %.1f µs%n", this.contenderName, this.workload,
					(double) cpuMicros / items);
			this.queue.stop();
			this.admin.deleteKeysContaining(this.name);
		}

		@TearDown(Level.Trial)
		public void close() {
			this.contender.close();
			this.admin.close();
		}

	}

	@State(Scope.Benchmark)
	public static class OursDelaying extends Adding {

		public OursDelaying() {
			super("ours", "addAfter", true);
		}

	}

	@State(Scope.Benchmark)
	public static class RedissonDelaying extends Adding {

		public RedissonDelaying() {
			super("redisson", "addAfter", true);
		}

	}

	@State(Scope.Benchmark)
	public static class OursPriority extends Adding {

		public OursPriority() {
			super("ours-priority", "priority add", false);
		}

	}

	@State(Scope.Benchmark)
	public static class RedissonPlain extends Adding {

		public RedissonPlain() {
			super("redisson", "plain add", false);
		}

	}

}
