package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
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

import dev.workqueue.timer.TimingWheel;

/**
 * Issue 3, timers: our {@link TimingWheel} beside Netty's {@link HashedWheelTimer}, both
 * with a 1 ms tick and 512 slots, on {@value #BATCH} timers with delays of 1 to 60
 * seconds (nothing fires).
 * <ul>
 * <li>{@code setTimer}: new keys into an empty wheel, fresh ({@code ours}) or one that
 * held as many timers before ({@code oursWarm}, as a long-lived wheel is). Netty needs a
 * task object per timeout to know which key fired; creating it is part of its cost.</li>
 * <li>{@code moveTimer}: every key of a full wheel rescheduled. Netty has no move: its
 * users cancel the timeout and create a new one.</li>
 * <li>{@code removeTimer}: every key of a full wheel removed; Netty:
 * {@code cancel()}.</li>
 * </ul>
 * Both wheels hand requests to their own thread. So that its work is measured, not left
 * behind, an invocation ends with one more timer due at once and waits until it fires: at
 * most about one tick per invocation, under 4 ns per operation (ours fires it at once,
 * Netty at its next tick). Each invocation gets a fresh wheel (filled and settled
 * beforehand for move and remove), and the teardown checks the pending count, failing the
 * run if any timer fired or went missing.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(TimingWheelBenchmark.BATCH)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = { "-Xms4g", "-Xmx4g" })
public class TimingWheelBenchmark {

	static final int BATCH = 250_000;

	static final Duration TICK = Duration.ofMillis(1);

	static final int SLOTS = 512;

	static final String[] KEYS = Keys.distinct(BATCH);

	static final Duration[] DELAYS = Keys.delays(BATCH, Duration.ofSeconds(1), Duration.ofSeconds(60));

	static final long[] DELAY_NANOS = Keys.nanos(DELAYS);

	/** The timer that ends an invocation; never one of {@link #KEYS}. */
	static final String LAST = "last";

	static final Object VALUE = Boolean.TRUE;

	@Benchmark
	public int setTimer_ours(OursEmpty state) throws InterruptedException {
		return setAll(state);
	}

	/**
	 * {@code setTimer} into a wheel that held as many timers before, as a long-lived
	 * wheel has: its key table has grown to the working set already. The cold row above
	 * pays that growth once per batch.
	 */
	@Benchmark
	public int setTimer_oursWarm(OursWarm state) throws InterruptedException {
		return setAll(state);
	}

	private static int setAll(OursEmpty state) throws InterruptedException {
		TimingWheel<String, Object> wheel = state.wheel;
		for (int i = 0; i < BATCH; i++) {
			wheel.setTimer(KEYS[i], VALUE, DELAYS[i]);
		}
		return state.settle();
	}

	@Benchmark
	public int setTimer_netty(NettyEmpty state) throws InterruptedException {
		HashedWheelTimer timer = state.timer;
		for (int i = 0; i < BATCH; i++) {
			timer.newTimeout(new KeyTask(KEYS[i]), DELAY_NANOS[i], TimeUnit.NANOSECONDS);
		}
		return state.settle();
	}

	@Benchmark
	public int moveTimer_ours(OursFull state) throws InterruptedException {
		TimingWheel<String, Object> wheel = state.wheel;
		for (int i = 0; i < BATCH; i++) {
			wheel.moveTimer(KEYS[i], DELAYS[BATCH - 1 - i]);
		}
		return state.settle();
	}

	@Benchmark
	public int moveTimer_netty(NettyFull state) throws InterruptedException {
		HashedWheelTimer timer = state.timer;
		Timeout[] timeouts = state.timeouts;
		for (int i = 0; i < BATCH; i++) {
			Timeout timeout = timeouts[i];
			timeout.cancel();
			timeouts[i] = timer.newTimeout(timeout.task(), DELAY_NANOS[BATCH - 1 - i], TimeUnit.NANOSECONDS);
		}
		return state.settle();
	}

	@Benchmark
	public int removeTimer_ours(OursFull state) throws InterruptedException {
		TimingWheel<String, Object> wheel = state.wheel;
		for (int i = 0; i < BATCH; i++) {
			wheel.removeTimer(KEYS[i]);
		}
		state.expected = 0;
		return state.settle();
	}

	@Benchmark
	public int removeTimer_netty(NettyFull state) throws InterruptedException {
		Timeout[] timeouts = state.timeouts;
		for (int i = 0; i < BATCH; i++) {
			timeouts[i].cancel();
		}
		state.expected = 0;
		return state.settle();
	}

	static void checkPending(long pending, long expected) {
		if (pending != expected) {
			throw new IllegalStateException("expected " + expected + " pending timers, found " + pending
					+ " (an invocation slower than the shortest delay, 1 s, lets timers fire)");
		}
	}

	/** A fresh, empty wheel of ours for each invocation. */
	@State(Scope.Thread)
	public static class OursEmpty {

		TimingWheel<String, Object> wheel;

		long expected;

		private volatile CountDownLatch lastFired;

		@Setup(Level.Invocation)
		public void open() throws InterruptedException {
			this.wheel = new TimingWheel<>(TICK, SLOTS, (key, value) -> {
				if (key == LAST) {
					this.lastFired.countDown();
				}
			});
			settle();
			fill();
			// What setTimer and moveTimer leave; removeTimer sets it to zero.
			this.expected = BATCH;
		}

		/** Fills the wheel before measuring; nothing for an empty wheel. */
		void fill() throws InterruptedException {
		}

		/** Waits until a timer due at once has fired; returns the pending count. */
		int settle() throws InterruptedException {
			CountDownLatch latch = new CountDownLatch(1);
			this.lastFired = latch;
			this.wheel.setTimer(LAST, VALUE, Duration.ZERO);
			latch.await();
			return this.wheel.size();
		}

		@TearDown(Level.Invocation)
		public void close() {
			int pending = this.wheel.size();
			this.wheel.stop();
			checkPending(pending, this.expected);
		}

	}

	/** A fresh wheel of ours holding every key, for each invocation. */
	@State(Scope.Thread)
	public static class OursFull extends OursEmpty {

		@Override
		void fill() throws InterruptedException {
			for (int i = 0; i < BATCH; i++) {
				this.wheel.setTimer(KEYS[i], VALUE, DELAYS[i]);
			}
			settle();
		}

	}

	/**
	 * A fresh wheel of ours for each invocation, filled with every key and emptied again
	 * before measuring: empty, with its key table grown.
	 */
	@State(Scope.Thread)
	public static class OursWarm extends OursFull {

		@Override
		void fill() throws InterruptedException {
			super.fill();
			for (int i = 0; i < BATCH; i++) {
				this.wheel.removeTimer(KEYS[i]);
			}
			settle();
		}

	}

	/** A fresh, started, empty Netty wheel for each invocation. */
	@State(Scope.Thread)
	public static class NettyEmpty {

		HashedWheelTimer timer;

		final Timeout[] timeouts = new Timeout[BATCH];

		long expected;

		@Setup(Level.Invocation)
		public void open() throws InterruptedException {
			this.timer = new HashedWheelTimer(new DaemonThreads("netty-wheel"), TICK.toNanos(), TimeUnit.NANOSECONDS,
					SLOTS);
			this.timer.start();
			settle();
			fill();
			this.expected = BATCH;
		}

		/** Fills the wheel before measuring; nothing for an empty wheel. */
		void fill() throws InterruptedException {
		}

		/** Waits until a timeout due at once has fired; returns the pending count. */
		int settle() throws InterruptedException {
			CountDownLatch latch = new CountDownLatch(1);
			this.timer.newTimeout((timeout) -> latch.countDown(), 0, TimeUnit.NANOSECONDS);
			latch.await();
			return (int) this.timer.pendingTimeouts();
		}

		@TearDown(Level.Invocation)
		public void close() {
			long pending = this.timer.pendingTimeouts();
			this.timer.stop();
			checkPending(pending, this.expected);
		}

	}

	/** A fresh Netty wheel holding a timeout per key, for each invocation. */
	@State(Scope.Thread)
	public static class NettyFull extends NettyEmpty {

		@Override
		void fill() throws InterruptedException {
			for (int i = 0; i < BATCH; i++) {
				this.timeouts[i] = this.timer.newTimeout(new KeyTask(KEYS[i]), DELAY_NANOS[i], TimeUnit.NANOSECONDS);
			}
			settle();
		}

	}

}
