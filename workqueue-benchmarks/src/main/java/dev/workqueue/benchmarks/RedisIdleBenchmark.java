package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 12: Redis commands per second of an idle queue, over {@value #WINDOW_MILLIS} ms
 * (one full period of Redisson's default 30 s connection ping).
 * <p>
 * Each iteration opens a fresh client, builds a delaying queue (ours, or Redisson's
 * {@code RDelayedQueue} in front of an {@code RBlockingQueue}), runs one item due in 1 ms
 * through it, starts {@value #WORKERS} workers blocked in {@code get}/{@code take} with
 * nothing to do, waits {@value #SETTLE_MILLIS} ms, and then counts:
 * <ul>
 * <li>{@code commandsPerSecond}: the commands the contender's own connections sent, told
 * apart from everyone else's by {@code MONITOR} and their client name (the issue's
 * target, per instance);</li>
 * <li>{@code serverCommandsPerSecond}: the {@code INFO commandstats} delta of the whole
 * server, less the measurement's own {@code INFO}: it also counts each command a script
 * runs, and anything other clients of a shared server did meanwhile (read
 * {@code otherCommandsPerSecond}: when it is not 0 this figure is not the contender's
 * alone);</li>
 * <li>{@code connections}: the contender's connections at the end.</li>
 * </ul>
 * The primary score, the window's length, means nothing.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 2)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisIdleBenchmark {

	static final long WINDOW_MILLIS = 30_000;

	static final long SETTLE_MILLIS = 2_000;

	static final int WORKERS = 4;

	@Benchmark
	public void delayingQueue_ours(Ours idle, Commands commands, BenchmarkParams params) throws InterruptedException {
		idle.measure(commands, params);
	}

	@Benchmark
	public void delayingQueue_redisson(Redisson idle, Commands commands, BenchmarkParams params)
			throws InterruptedException {
		idle.measure(commands, params);
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Commands {

		public double commandsPerSecond;

		public double serverCommandsPerSecond;

		public double otherCommandsPerSecond;

		public double connections;

	}

	/** An idle queue with workers waiting, fresh for each iteration. */
	public abstract static class Idle {

		private String name;

		private RedisContender contender;

		private RedisWorkers workers;

		abstract String contenderName();

		@Setup(Level.Iteration)
		public void start() throws InterruptedException {
			this.name = RedisAdmin.uniqueName("idle");
			this.contender = RedisContender.named(contenderName());
			this.contender.open(this.name);
			RedisContender.Queue queue = this.contender.delayingQueue(this.name);
			queue.addAfter("item", Duration.ofMillis(1));
			queue.done(queue.get());
			this.workers = RedisWorkers.start(queue, WORKERS, new Progress());
			Thread.sleep(SETTLE_MILLIS);
		}

		final void measure(Commands commands, BenchmarkParams params) throws InterruptedException {
			try (RedisAdmin admin = RedisAdmin.connect(); RedisMonitor monitor = RedisMonitor.start()) {
				long callsBefore = admin.commandCalls();
				Map<String, Long> before = monitor.counts();
				Thread.sleep(WINDOW_MILLIS);
				// The INFO above counted itself once it had run; this one is not counted
				// yet.
				long serverCalls = admin.commandCalls() - callsBefore - 1;
				Map<String, Long> after = monitor.counts();
				Set<String> own = admin.clientAddresses(this.name);
				long contenderCalls = 0;
				long otherCalls = 0;
				for (Map.Entry<String, Long> entry : after.entrySet()) {
					long calls = entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
					if (own.contains(entry.getKey())) {
						contenderCalls += calls;
					}
					else if (!entry.getKey().equals(admin.clientAddress()) && !entry.getKey().equals("lua")) {
						otherCalls += calls;
					}
				}
				double seconds = WINDOW_MILLIS / 1_000.0;
				double share = Figures.share(params);
				commands.commandsPerSecond = contenderCalls / seconds * share;
				commands.serverCommandsPerSecond = serverCalls / seconds * share;
				commands.otherCommandsPerSecond = otherCalls / seconds * share;
				commands.connections = own.size() * share;
			}
		}

		@TearDown(Level.Iteration)
		public void stop() throws InterruptedException {
			this.workers.stop();
			this.contender.close();
			try (RedisAdmin admin = RedisAdmin.connect()) {
				admin.deleteKeysContaining(this.name);
			}
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Idle {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class Redisson extends Idle {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

}
