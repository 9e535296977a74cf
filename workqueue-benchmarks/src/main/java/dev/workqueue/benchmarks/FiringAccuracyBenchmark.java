package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.util.HashedWheelTimer;
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

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.delay.DelayQueue;
import dev.workqueue.timer.TimingWheel;

/**
 * W4 and issue 3: firing accuracy. {@value #ITEMS} items are scheduled at once with
 * delays spread uniformly over 2 seconds; each firing is timed by whoever receives it (a
 * consumer thread blocked in {@code get}/{@code take}, or the timer's own thread).
 * <p>
 * The figures are JMH auxiliary counters (see {@link Figures}), per iteration: items
 * fired {@code early} (before the due time taken just before scheduling them) and by how
 * much at most, items {@code lost} (not fired 1 s after the last due time), items fired
 * twice, lateness percentiles in microseconds, and the garbage collections that fell
 * inside the iteration (see {@link GcTotals}). The primary score, the duration of the
 * run, means nothing.
 * <p>
 * Contenders: delaying queues (ours, client-java's paced so that it drops nothing, the
 * JDK's {@link java.util.concurrent.DelayQueue} as the reference), timing wheels ticking
 * every millisecond with 512 slots (ours, Netty's), and our {@link DelayQueue}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 2)
@Fork(value = 3, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
public class FiringAccuracyBenchmark {

	static final int ITEMS = 100_000;

	static final Integer[] KEYS = Keys.indexes(ITEMS);

	static final Duration[] DELAYS = Keys.delays(ITEMS, Duration.ofNanos(1), Duration.ofSeconds(2));

	static final long[] DELAY_NANOS = Keys.nanos(DELAYS);

	static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

	static final Duration TICK = Duration.ofMillis(1);

	static final int SLOTS = 512;

	@Benchmark
	public void delayingQueue_ours(OursDelaying contender, Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		contender.run(accuracy, params);
	}

	@Benchmark
	public void delayingQueue_clientJava(ClientJavaDelaying contender, Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		contender.run(accuracy, params);
	}

	@Benchmark
	public void delayingQueue_jdkDelayQueue(JdkDelayQueue contender, Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		contender.run(accuracy, params);
	}

	@Benchmark
	public void timingWheel_ours(OursWheel contender, Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		contender.run(accuracy, params);
	}

	@Benchmark
	public void timingWheel_netty(NettyWheel contender, Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		contender.run(accuracy, params);
	}

	@Benchmark
	public void delayQueue_ours(OursDelayQueue contender, Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		contender.run(accuracy, params);
	}

	/** The figures of one iteration; see {@link FiringLog#report}. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Accuracy {

		public double early;

		public double lost;

		public double duplicates;

		public double maxEarlyMicros;

		public double p50LatenessMicros;

		public double p99LatenessMicros;

		public double maxLatenessMicros;

		/**
		 * Garbage collections during the iteration: a pause there makes every item due in
		 * it late, whoever the contender.
		 */
		public double gcCollections;

		/** Their time in milliseconds. */
		public double gcMillis;

	}

	/**
	 * One contender, fresh for each iteration: schedules the items, then stops its
	 * threads so that the log is final.
	 */
	public abstract static class Contender {

		FiringLog log;

		private Thread consumer;

		private boolean closed;

		@Setup(Level.Iteration)
		public void open() {
			this.log = new FiringLog(ITEMS);
			this.closed = false;
			start();
		}

		@TearDown(Level.Iteration)
		public void close() throws InterruptedException {
			if (this.closed) {
				return;
			}
			this.closed = true;
			stop();
			if (this.consumer != null) {
				this.consumer.interrupt();
				this.consumer.join();
			}
		}

		final void run(Accuracy accuracy, BenchmarkParams params) throws InterruptedException {
			GcTotals before = GcTotals.now();
			for (int i = 0; i < ITEMS; i++) {
				schedule(i);
			}
			this.log.awaitAll(GRACE_NANOS);
			close();
			this.log.report(accuracy, Figures.share(params), GcTotals.now().since(before));
		}

		/** Starts a consumer thread running {@code loop} until interrupted. */
		final void consume(InterruptibleLoop loop) {
			this.consumer = new Thread(() -> {
				try {
					loop.run();
				}
				catch (InterruptedException ex) {
					// Stopped by close().
				}
			}, "firing-consumer");
			this.consumer.setDaemon(true);
			this.consumer.start();
		}

		abstract void start();

		/** Records item {@code i}'s due time, then schedules it. */
		abstract void schedule(int i);

		/** Stops the contender: nothing fires afterwards. */
		abstract void stop();

	}

	/** A consumer's loop. */
	@FunctionalInterface
	interface InterruptibleLoop {

		void run() throws InterruptedException;

	}

	/** Our delaying queue, a consumer doing get and done. */
	@State(Scope.Thread)
	public static class OursDelaying extends Contender {

		private DelayingQueue<Integer> queue;

		@Override
		void start() {
			DelayingQueue<Integer> queue = WorkQueues.<Integer>builder().name("bench").buildDelayingQueue();
			this.queue = queue;
			FiringLog log = this.log;
			consume(() -> {
				for (Integer item = queue.get(); item != null; item = queue.get()) {
					log.fired(item);
					queue.done(item);
				}
			});
		}

		@Override
		void schedule(int i) {
			this.log.scheduling(i, DELAY_NANOS[i]);
			this.queue.addAfter(KEYS[i], DELAYS[i]);
		}

		@Override
		void stop() {
			this.queue.shutDown();
		}

	}

	/** client-java's delaying queue, paced, a consumer doing get and done. */
	@State(Scope.Thread)
	public static class ClientJavaDelaying extends Contender {

		private PacedDelayingQueue<Integer> queue;

		@Override
		void start() {
			PacedDelayingQueue<Integer> queue = PacedDelayingQueue.start();
			this.queue = queue;
			FiringLog log = this.log;
			consume(() -> {
				for (Integer item = queue.get(); item != null; item = queue.get()) {
					log.fired(item);
					queue.done(item);
				}
			});
		}

		@Override
		void schedule(int i) {
			this.queue.awaitRoom();
			this.log.scheduling(i, DELAY_NANOS[i]);
			this.queue.addAfter(KEYS[i], DELAYS[i]);
		}

		@Override
		void stop() {
			this.queue.close();
		}

	}

	/** The JDK's delay queue, a consumer doing take. */
	@State(Scope.Thread)
	public static class JdkDelayQueue extends Contender {

		private java.util.concurrent.DelayQueue<DelayedItem<Integer>> queue;

		@Override
		void start() {
			java.util.concurrent.DelayQueue<DelayedItem<Integer>> queue = new java.util.concurrent.DelayQueue<>();
			this.queue = queue;
			FiringLog log = this.log;
			consume(() -> {
				while (true) {
					log.fired(queue.take().item);
				}
			});
		}

		@Override
		void schedule(int i) {
			this.log.scheduling(i, DELAY_NANOS[i]);
			this.queue.offer(DelayedItem.in(KEYS[i], DELAY_NANOS[i]));
		}

		@Override
		void stop() {
		}

	}

	/** Our timing wheel, firing on its own thread. */
	@State(Scope.Thread)
	public static class OursWheel extends Contender {

		private TimingWheel<Integer, Object> wheel;

		@Override
		void start() {
			FiringLog log = this.log;
			this.wheel = new TimingWheel<>(TICK, SLOTS, (key, value) -> log.fired(key));
		}

		@Override
		void schedule(int i) {
			this.log.scheduling(i, DELAY_NANOS[i]);
			this.wheel.setTimer(KEYS[i], Boolean.TRUE, DELAYS[i]);
		}

		@Override
		void stop() {
			this.wheel.stop();
		}

	}

	/** Netty's wheel, firing on its own thread. */
	@State(Scope.Thread)
	public static class NettyWheel extends Contender {

		private HashedWheelTimer timer;

		@Override
		void start() {
			this.timer = new HashedWheelTimer(new DaemonThreads("netty-wheel"), TICK.toNanos(), TimeUnit.NANOSECONDS,
					SLOTS);
			this.timer.start();
		}

		@Override
		void schedule(int i) {
			FiringLog log = this.log;
			this.log.scheduling(i, DELAY_NANOS[i]);
			this.timer.newTimeout((timeout) -> log.fired(i), DELAY_NANOS[i], TimeUnit.NANOSECONDS);
		}

		@Override
		void stop() {
			this.timer.stop();
		}

	}

	/** Our delay queue, a consumer doing take. */
	@State(Scope.Thread)
	public static class OursDelayQueue extends Contender {

		private DelayQueue<Integer> queue;

		@Override
		void start() {
			DelayQueue<Integer> queue = new DelayQueue<>();
			this.queue = queue;
			FiringLog log = this.log;
			consume(() -> {
				while (true) {
					log.fired(queue.take());
				}
			});
		}

		@Override
		void schedule(int i) {
			this.log.scheduling(i, DELAY_NANOS[i]);
			this.queue.push(KEYS[i], DELAYS[i]);
		}

		@Override
		void stop() {
		}

	}

}
