package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.AuxCounters;
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
 * Issue 12: add→get latency on Redis at a paced {@value #RATE} items per second. One
 * thread adds {@value #ITEMS} distinct items, item {@code i} at {@code i} ms after the
 * start (one call each, never in a burst); one consumer blocked in {@code get} (ours) or
 * {@code take} (Redisson's {@code RBlockingQueue}) receives them (see
 * {@link RedisLoggedQueue}). An item's latency runs from just before its {@code add} call
 * to the return of the {@code get} that hands it out, on {@link System#nanoTime()}: it
 * includes the add's own round trip.
 * <p>
 * The figures are auxiliary counters (see {@link Figures}), per iteration: latency p50,
 * p99 and max in microseconds, and items {@code lost} (not received 2 s after the last
 * add). The primary score, the run's duration, means nothing.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 2, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
public class RedisLatencyBenchmark {

	static final int RATE = 1_000;

	static final int ITEMS = 5_000;

	static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1) / RATE;

	static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

	@Benchmark
	public void addToGet_ours(Ours queue, Latency latency, BenchmarkParams params) throws InterruptedException {
		queue.run(latency, params);
	}

	@Benchmark
	public void addToGet_redisson(Redisson queue, Latency latency, BenchmarkParams params) throws InterruptedException {
		queue.run(latency, params);
	}

	/** The figures of one iteration. */
	@AuxCounters(AuxCounters.Type.EVENTS)
	@State(Scope.Thread)
	public static class Latency {

		public double p50Micros;

		public double p99Micros;

		public double maxMicros;

		public double lost;

	}

	/** A work queue whose consumer logs each item's arrival. */
	public abstract static class Paced extends RedisLoggedQueue {

		@Override
		boolean delaying() {
			return false;
		}

		@Override
		int items() {
			return ITEMS;
		}

		final void run(Latency latency, BenchmarkParams params) throws InterruptedException {
			long startNanos = System.nanoTime();
			for (int i = 0; i < ITEMS; i++) {
				long atNanos = startNanos + i * PERIOD_NANOS;
				for (long waitNanos = atNanos - System.nanoTime(); waitNanos > 0; waitNanos = atNanos
						- System.nanoTime()) {
					LockSupport.parkNanos(waitNanos);
				}
				this.log.scheduling(i, 0);
				this.queue.add(NAMES[i]);
			}
			this.log.awaitAll(GRACE_NANOS);
			end();
			FiringLog.Summary summary = this.log.summary();
			double share = Figures.share(params);
			latency.p50Micros = FiringLog.micros(summary.p50LatenessNanos()) * share;
			latency.p99Micros = FiringLog.micros(summary.p99LatenessNanos()) * share;
			latency.maxMicros = FiringLog.micros(summary.maxLatenessNanos()) * share;
			latency.lost = summary.lost() * share;
		}

	}

	@State(Scope.Thread)
	public static class Ours extends Paced {

		@Override
		String contenderName() {
			return "ours";
		}

	}

	@State(Scope.Thread)
	public static class Redisson extends Paced {

		@Override
		String contenderName() {
			return "redisson";
		}

	}

}
