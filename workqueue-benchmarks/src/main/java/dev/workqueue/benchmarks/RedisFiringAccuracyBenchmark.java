package dev.workqueue.benchmarks;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Issue 12: firing accuracy of delays kept in Redis, as {@link FiringAccuracyBenchmark}
 * (W4) with its log and figures: {@value #ITEMS} items are scheduled from one thread, one
 * call each, with delays spread uniformly over 2 s (whole milliseconds, Redisson's unit,
 * the same fixed-seed sequence for both), and one consumer blocked in {@code get} (ours)
 * or {@code take} (the destination {@code RBlockingQueue} of Redisson's
 * {@code RDelayedQueue}) logs each arrival (see {@link RedisLoggedQueue}).
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

	/** A delaying queue whose consumer logs each item's arrival. */
	public abstract static class Delays extends RedisLoggedQueue {

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
			for (int i = 0; i < ITEMS; i++) {
				this.log.scheduling(i, DELAY_NANOS[i]);
				this.queue.addAfter(NAMES[i], DELAYS[i]);
			}
			this.log.awaitAll(TimeUnit.SECONDS.toNanos(GRACE_SECONDS));
			end();
			this.log.report(accuracy, Figures.share(params), GcTotals.now().since(before));
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
