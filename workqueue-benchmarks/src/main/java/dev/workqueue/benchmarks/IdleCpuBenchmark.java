package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
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
import dev.workqueue.timer.TimingWheel;

/**
 * W6 and issue 3: CPU time used by the threads of an idle structure over
 * {@value #WINDOW_MILLIS} ms of wall time, read from {@code ThreadMXBean} for exactly the
 * threads the structure started (their names are printed).
 * <p>
 * Each structure is built, made to run one item or timer due in 1 ms (so that its thread
 * exists and has worked), and then left idle with nothing pending. The figure is the
 * auxiliary counter {@code cpuMillis} (see {@link Figures}); the primary score, the
 * window's length, means nothing. Contenders: delaying queues (ours, client-java's) and
 * timing wheels (ours at a 1 ms tick; Netty's at 1 ms and at its default 100 ms).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 2)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
public class IdleCpuBenchmark {

	static final long WINDOW_MILLIS = 10_000;

	static final Duration SOON = Duration.ofMillis(1);

	static final int SLOTS = 512;

	@Benchmark
	public void delayingQueue_ours(OursDelaying idle, Cpu cpu, BenchmarkParams params) throws InterruptedException {
		idle.measure(cpu, params);
	}

	@Benchmark
	public void delayingQueue_clientJava(ClientJavaDelaying idle, Cpu cpu, BenchmarkParams params)
			throws InterruptedException {
		idle.measure(cpu, params);
	}

	@Benchmark
	public void timingWheel_ours(OursWheel idle, Cpu cpu, BenchmarkParams params) throws InterruptedException {
		idle.measure(cpu, params);
	}

	@Benchmark
	public void timingWheel_netty(NettyWheel1ms idle, Cpu cpu, BenchmarkParams params) throws InterruptedException {
		idle.measure(cpu, params);
	}

	@Benchmark
	public void timingWheel_netty100ms(NettyWheel100ms idle, Cpu cpu, BenchmarkParams params)
			throws InterruptedException {
		idle.measure(cpu, params);
	}

	/** CPU milliseconds used in the window, and how many threads were watched. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Cpu {

		public double cpuMillis;

		public double threads;

	}

	/** An idle structure, fresh for each iteration, and the threads it started. */
	public abstract static class Idle {

		private ThreadCpu threads;

		@Setup(Level.Iteration)
		public void open() throws InterruptedException {
			Set<Long> before = ThreadCpu.liveThreadIds();
			start();
			this.threads = ThreadCpu.startedSince(before);
			System.out.println("watching " + this.threads.names());
		}

		@TearDown(Level.Iteration)
		public void close() {
			stop();
		}

		final void measure(Cpu cpu, BenchmarkParams params) throws InterruptedException {
			long startNanos = this.threads.cpuNanos();
			Thread.sleep(WINDOW_MILLIS);
			long usedNanos = this.threads.cpuNanos() - startNanos;
			double share = Figures.share(params);
			cpu.cpuMillis = usedNanos / 1e6 * share;
			cpu.threads = this.threads.count() * share;
		}

		/** Builds the structure and runs one item through it; returns once it is idle. */
		abstract void start() throws InterruptedException;

		abstract void stop();

	}

	/** Our delaying queue, after one item went through. */
	@State(Scope.Thread)
	public static class OursDelaying extends Idle {

		private DelayingQueue<String> queue;

		@Override
		void start() throws InterruptedException {
			this.queue = WorkQueues.<String>builder().name("idle").buildDelayingQueue();
			this.queue.addAfter("item", SOON);
			this.queue.done(this.queue.get());
		}

		@Override
		void stop() {
			this.queue.shutDown();
		}

	}

	/** client-java's delaying queue, after one item went through. */
	@State(Scope.Thread)
	public static class ClientJavaDelaying extends Idle {

		private PacedDelayingQueue<String> queue;

		@Override
		void start() throws InterruptedException {
			this.queue = PacedDelayingQueue.start();
			this.queue.addAfter("item", SOON);
			this.queue.done(this.queue.get());
		}

		@Override
		void stop() {
			this.queue.close();
		}

	}

	/** Our timing wheel, ticking every millisecond, after one timer fired. */
	@State(Scope.Thread)
	public static class OursWheel extends Idle {

		private TimingWheel<String, CountDownLatch> wheel;

		@Override
		void start() throws InterruptedException {
			this.wheel = new TimingWheel<>(SOON, SLOTS, (key, fired) -> fired.countDown());
			CountDownLatch fired = new CountDownLatch(1);
			this.wheel.setTimer("timer", fired, SOON);
			fired.await();
		}

		@Override
		void stop() {
			this.wheel.stop();
		}

	}

	/** Netty's wheel at a given tick. */
	public abstract static class NettyWheel extends Idle {

		private HashedWheelTimer timer;

		@Override
		void start() throws InterruptedException {
			this.timer = new HashedWheelTimer(new DaemonThreads("netty-wheel"), tickMillis(), TimeUnit.MILLISECONDS,
					SLOTS);
			CountDownLatch fired = new CountDownLatch(1);
			this.timer.newTimeout((timeout) -> fired.countDown(), SOON.toMillis(), TimeUnit.MILLISECONDS);
			fired.await();
		}

		abstract long tickMillis();

		@Override
		void stop() {
			this.timer.stop();
		}

	}

	/** Netty's wheel at a 1 ms tick. */
	@State(Scope.Thread)
	public static class NettyWheel1ms extends NettyWheel {

		@Override
		long tickMillis() {
			return 1;
		}

	}

	/** Netty's wheel at its default 100 ms tick. */
	@State(Scope.Thread)
	public static class NettyWheel100ms extends NettyWheel {

		@Override
		long tickMillis() {
			return 100;
		}

	}

}
