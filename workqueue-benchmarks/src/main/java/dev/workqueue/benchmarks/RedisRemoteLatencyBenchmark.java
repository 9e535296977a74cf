package dev.workqueue.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

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
 * Issue 39: add&rarr;get latency on Redis at a paced {@value #RATE} adds per second, the
 * producer and the consumers in different processes: how soon a consumer waiting in
 * another instance gets an item added by this one.
 * <p>
 * <b>Workload.</b> Each trial starts a consumer process on a fresh queue
 * ({@value #CONSUMERS} consumers waiting for work: a {@link RedisWorkerMain} JVM for ours
 * and Redisson, each worker marking its item done with the get of its next; a BullMQ
 * Worker of concurrency {@value #CONSUMERS} in Node, {@code bullmq/remote.mjs}) and a
 * producer (ours and Redisson in this JVM; BullMQ's a Node process of its own, as this
 * JVM cannot add BullMQ jobs), both kept for every iteration so that the warm-up warms
 * them. Each iteration lets the consumers wait on the empty queue for a second, then adds
 * {@value #ITEMS} distinct items, item {@code i} at {@code i / RATE} s after the start,
 * one call each. Items not received {@value #GRACE_SECONDS} s after the last add are
 * lost.
 * <p>
 * <b>One clock.</b> An item's latency runs from just before its add call (so it includes
 * the add's own round trip) to the moment a consumer has it. Both ends read the machine's
 * monotonic clock: {@link System#nanoTime()} in the JVMs and
 * {@code process.hrtime.bigint()} in Node are {@code clock_gettime(CLOCK_MONOTONIC)} on
 * Linux, one clock for every process of the machine, so the two readings are directly
 * comparable (a round trip through an acknowledgement would add the way back and the
 * reporting process's scheduling to every figure). Each process proves it when it starts:
 * its {@code ready} line carries a reading that must fall between this JVM's readings
 * before its start and at the line's arrival ({@link WorkerJvm}); an item received before
 * it was added would count as {@code early}.
 * <p>
 * <b>Figures</b> (auxiliary counters, see {@link Figures}), per iteration: latency p50,
 * p99 and max in microseconds, {@code lost}, {@code early}, and {@code commandsPerItem}:
 * every command {@code INFO commandstats} counted from the first add to the last item
 * received (scripts and the commands inside them), per item; run on a Redis of its own
 * for that figure to mean anything. The primary score, the iteration's duration, means
 * nothing.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisRemoteLatencyBenchmark {

	static final int RATE = 1_000;

	static final int ITEMS = 5_000;

	static final int CONSUMERS = 4;

	static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1) / RATE;

	static final int GRACE_SECONDS = 2;

	/** How long the consumers wait on the empty queue before the first add. */
	static final long SETTLE_MILLIS = 1_000;

	/** Where {@code bullmq/remote.mjs} is, if not beside the benchmark jar's module. */
	static final String BULLMQ_PROPERTY = "workqueue.bench.bullmq";

	@Benchmark
	public void addToGet_ours(Ours side, Latency latency, BenchmarkParams params) throws Exception {
		side.run(latency, params);
	}

	@Benchmark
	public void addToGet_redisson(Redisson side, Latency latency, BenchmarkParams params) throws Exception {
		side.run(latency, params);
	}

	@Benchmark
	public void addToGet_bullmq(BullMq side, Latency latency, BenchmarkParams params) throws Exception {
		side.run(latency, params);
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Latency {

		public double p50Micros;

		public double p99Micros;

		public double maxMicros;

		public double lost;

		public double early;

		public double commandsPerItem;

	}

	/**
	 * A consumer process and a producer on one queue for the whole trial, so that the
	 * warm-up iteration warms both; each iteration has a log of its own.
	 */
	public abstract static class Remote {

		String name;

		/** The iteration's log; read by the consumer process's reader thread. */
		volatile FiringLog log;

		private WorkerJvm consumers;

		abstract String contenderName();

		/**
		 * Starts the consumer process on the queue; it reports each item with a
		 * {@code got item-<i> <nanos>} line.
		 */
		abstract WorkerJvm startConsumers(Consumer<String> lines) throws IOException, InterruptedException;

		/** Opens the producer on the queue. */
		abstract void openProducer() throws IOException, InterruptedException;

		/** Adds the items, paced, logging when each was added in {@link #log}. */
		abstract void produce() throws IOException, InterruptedException;

		/** Closes the producer. */
		abstract void closeProducer() throws InterruptedException;

		@Setup(Level.Trial)
		public void begin() throws IOException, InterruptedException {
			this.name = RedisAdmin.uniqueName("remote");
			this.consumers = startConsumers((line) -> {
				// got item-<i> <nanos>
				int space = line.indexOf(' ', 4);
				if (line.startsWith("got item-") && space > 0) {
					this.log.fired(Integer.parseInt(line, "got item-".length(), space, 10),
							Long.parseLong(line.substring(space + 1)));
				}
				else {
					System.out.println("[consumer] " + line);
				}
			});
			openProducer();
		}

		@Setup(Level.Iteration)
		public void settle() throws InterruptedException {
			this.log = new FiringLog(ITEMS);
			// The consumers have looked at the empty queue, and wait.
			Thread.sleep(SETTLE_MILLIS);
		}

		final void run(Latency latency, BenchmarkParams params) throws IOException, InterruptedException {
			CommandProfile commands = new CommandProfile();
			try (RedisAdmin admin = RedisAdmin.connect()) {
				commands.start(admin);
				produce();
				this.log.awaitAll(TimeUnit.SECONDS.toNanos(GRACE_SECONDS));
				commands.stop(admin, ITEMS);
			}
			FiringLog.Summary summary = this.log.summary();
			double share = Figures.share(params);
			latency.p50Micros = FiringLog.micros(summary.p50LatenessNanos()) * share;
			latency.p99Micros = FiringLog.micros(summary.p99LatenessNanos()) * share;
			latency.maxMicros = FiringLog.micros(summary.maxLatenessNanos()) * share;
			latency.lost = summary.lost() * share;
			latency.early = summary.early() * share;
			latency.commandsPerItem = commands.perItem() * share;
			System.out.printf("%s: p50 %.0f us, p99 %.0f us, max %.0f us, lost %d, early %d; %s%n", contenderName(),
					FiringLog.micros(summary.p50LatenessNanos()), FiringLog.micros(summary.p99LatenessNanos()),
					FiringLog.micros(summary.maxLatenessNanos()), summary.lost(), summary.early(),
					commands.line(contenderName() + ", " + RATE + " adds/s across processes"));
		}

		/**
		 * Stops the consumer process and the producer, then deletes the queue's keys.
		 * @throws InterruptedException if interrupted
		 */
		@TearDown(Level.Trial)
		public void end() throws InterruptedException {
			if (this.consumers != null) {
				this.consumers.stop();
			}
			closeProducer();
			try (RedisAdmin admin = RedisAdmin.connect()) {
				admin.deleteKeysContaining(this.name);
			}
		}

	}

	/** Ours or Redisson: a {@link RedisWorkerMain} consumer JVM, the producer here. */
	public abstract static class JavaSide extends Remote {

		private RedisContender producer;

		private RedisContender.Queue queue;

		@Override
		WorkerJvm startConsumers(Consumer<String> lines) throws IOException, InterruptedException {
			return WorkerJvm.startLogging(contenderName(), this.name, CONSUMERS, this.name + "-consumers", lines);
		}

		@Override
		void openProducer() {
			this.producer = RedisContender.named(contenderName());
			this.producer.open(this.name + "-producer");
			this.queue = this.producer.queue(this.name);
		}

		@Override
		void produce() {
			long startNanos = System.nanoTime();
			for (int i = 0; i < ITEMS; i++) {
				long atNanos = startNanos + i * PERIOD_NANOS;
				for (long waitNanos = atNanos - System.nanoTime(); waitNanos > 0; waitNanos = atNanos
						- System.nanoTime()) {
					LockSupport.parkNanos(waitNanos);
				}
				this.log.scheduling(i, 0);
				this.queue.add(RedisLoggedQueue.NAMES[i]);
			}
		}

		@Override
		void closeProducer() {
			if (this.queue != null) {
				this.queue.stop();
			}
			if (this.producer != null) {
				this.producer.close();
			}
		}

	}

	@State(Scope.Thread)
	public static class Ours extends JavaSide {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class Redisson extends JavaSide {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

	/**
	 * BullMQ: a Worker in one Node process, a producer in another, both
	 * {@code bullmq/remote.mjs} (run {@code npm ci} in {@code bullmq/} first).
	 */
	@State(Scope.Thread)
	public static class BullMq extends Remote {

		private WorkerJvm producer;

		/** Counted down by its {@code finished} line; one per iteration. */
		private volatile CountDownLatch finished;

		@Override
		String contenderName() {
			return "bullmq";
		}

		@Override
		WorkerJvm startConsumers(Consumer<String> lines) throws IOException, InterruptedException {
			return WorkerJvm.start(node("consumer", "--concurrency", Integer.toString(CONSUMERS)), directory(),
					new Progress(), lines);
		}

		@Override
		void openProducer() throws IOException, InterruptedException {
			this.producer = WorkerJvm.start(
					node("producer", "--items", Integer.toString(ITEMS), "--rate", Integer.toString(RATE)), directory(),
					new Progress(), (line) -> {
						// sent <i> <nanos>
						int space = line.indexOf(' ', 5);
						if (line.startsWith("sent ") && space > 0) {
							this.log.scheduled(Integer.parseInt(line, 5, space, 10),
									Long.parseLong(line.substring(space + 1)));
						}
						else if (line.equals("finished")) {
							this.finished.countDown();
						}
						else {
							System.out.println("[producer] " + line);
						}
					});
		}

		@Override
		void produce() throws IOException, InterruptedException {
			this.finished = new CountDownLatch(1);
			this.producer.tell("go");
			// Its lines are read in order: every add is logged once it says finished.
			if (!this.finished.await(ITEMS / RATE + 60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("the BullMQ producer did not finish");
			}
		}

		@Override
		void closeProducer() throws InterruptedException {
			if (this.producer != null) {
				this.producer.stop();
			}
		}

		private List<String> node(String role, String... options) {
			List<String> command = new ArrayList<>(List.of("node", "remote.mjs", role, "--redis",
					RedisAdmin.HOST + ":" + RedisAdmin.PORT, "--queue", this.name));
			command.addAll(List.of(options));
			return command;
		}

		/** {@code bullmq/} of the benchmarks module: beside the jar's {@code target/}. */
		private static File directory() {
			String given = System.getProperty(BULLMQ_PROPERTY);
			File directory;
			try {
				directory = (given != null) ? new File(given) : new File(
						RedisRemoteLatencyBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI())
					.getParentFile()
					.getParentFile()
					.toPath()
					.resolve("bullmq")
					.toFile();
			}
			catch (URISyntaxException ex) {
				throw new IllegalStateException(ex);
			}
			if (!new File(directory, "node_modules").isDirectory()) {
				throw new IllegalStateException(
						"no BullMQ in " + directory + ": run npm ci there, or set -D" + BULLMQ_PROPERTY + "=<dir>");
			}
			return directory;
		}

	}

}
