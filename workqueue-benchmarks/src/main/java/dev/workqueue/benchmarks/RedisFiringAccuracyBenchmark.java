package dev.workqueue.benchmarks;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 12: firing accuracy of delays kept in Redis, as {@link FiringAccuracyBenchmark}
 * (W4) with its log and figures: {@value #ITEMS} items are scheduled from one thread, one
 * call each, with delays spread uniformly over 2 s (whole milliseconds, Redisson's unit,
 * the same fixed-seed sequence for both), and {@code consumers} consumers (16 by default,
 * issue 32; one in the runs of issues 12 to 22) blocked in {@code get} (ours) or
 * {@code take} (the destination {@code RBlockingQueue} of Redisson's
 * {@code RDelayedQueue}) log each arrival (see {@link RedisLoggedQueue}). With
 * {@code loadPerSecond > 0}, a producer thread adds that many distinct plain items per
 * second to the same queue while the delays are scheduled and come due, which the same
 * consumers take and mark done: the lateness of delays on a working queue (issue 32).
 * <p>
 * An item's due time is taken on {@link System#nanoTime()} just before its
 * {@code addAfter}/{@code offer} call: an item that arrives before it is {@code early}.
 * Redisson computes due times on the client's millisecond wall clock
 * ({@code currentTimeMillis() + delay}), which can put them up to 1 ms before the
 * requested delay; ours uses the Redis server's clock in microseconds. Items not received
 * {@value #GRACE_SECONDS} s after the last due time are {@code lost}. The figures are
 * {@link FiringAccuracyBenchmark.Accuracy}'s auxiliary counters.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 2, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisFiringAccuracyBenchmark {

	static final int ITEMS = 10_000;

	static final Duration[] DELAYS = wholeMillis(Keys.delays(ITEMS, Duration.ofMillis(1), Duration.ofSeconds(2)));

	static final long[] DELAY_NANOS = Keys.nanos(DELAYS);

	static final long GRACE_SECONDS = 2;

	@Benchmark
	public void delayingQueue_ours(Ours queue, FiringAccuracyBenchmark.Accuracy accuracy, BenchmarkParams params)
			throws InterruptedException {
		queue.run(accuracy, params);
	}

	@Benchmark
	public void delayingQueue_redisson(Redisson queue, FiringAccuracyBenchmark.Accuracy accuracy,
			BenchmarkParams params) throws InterruptedException {
		queue.run(accuracy, params);
	}

	/** A delaying queue whose consumers log each item's arrival. */
	@State(Scope.Thread)
	public abstract static class Delays extends RedisLoggedQueue {

		/** Consumer threads. */
		@Param({ "16" })
		public int consumers;

		/** Plain items added per second beside the delays, by one more thread. */
		@Param({ "0", "2000" })
		public int loadPerSecond;

		@Override
		int consumers() {
			return this.consumers;
		}

		@Override
		boolean delaying() {
			return true;
		}

		@Override
		int items() {
			return ITEMS;
		}

		final void run(FiringAccuracyBenchmark.Accuracy accuracy, BenchmarkParams params) throws InterruptedException {
			GcTotals before = GcTotals.now();
			AtomicBoolean loading = new AtomicBoolean(true);
			Thread load = (this.loadPerSecond > 0) ? startLoad(loading) : null;
			try {
				for (int i = 0; i < ITEMS; i++) {
					this.log.scheduling(i, DELAY_NANOS[i]);
					this.queue.addAfter(NAMES[i], DELAYS[i]);
				}
				this.log.awaitAll(TimeUnit.SECONDS.toNanos(GRACE_SECONDS));
			}
			finally {
				loading.set(false);
				if (load != null) {
					load.join(10_000);
				}
			}
			end();
			this.log.report(accuracy, Figures.share(params), GcTotals.now().since(before));
		}

		/**
		 * Adds {@code load-<n>} items at {@code loadPerSecond}, paced, until told to
		 * stop.
		 */
		private Thread startLoad(AtomicBoolean loading) {
			RedisContender.Queue queue = this.queue;
			long intervalNanos = TimeUnit.SECONDS.toNanos(1) / this.loadPerSecond;
			Thread load = new Thread(() -> {
				long nextNanos = System.nanoTime();
				for (long n = 0; loading.get(); n++) {
					queue.add("load-" + n);
					nextNanos += intervalNanos;
					long waitNanos = nextNanos - System.nanoTime();
					if (waitNanos > 0) {
						LockSupport.parkNanos(waitNanos);
					}
				}
			}, "redis-bench-load");
			load.setDaemon(true);
			load.start();
			return load;
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Delays {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class Redisson extends Delays {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

	private static Duration[] wholeMillis(Duration[] delays) {
		for (int i = 0; i < delays.length; i++) {
			delays[i] = delays[i].truncatedTo(ChronoUnit.MILLIS);
		}
		return delays;
	}

}
