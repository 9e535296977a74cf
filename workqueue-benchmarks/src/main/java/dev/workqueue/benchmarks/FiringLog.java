package dev.workqueue.benchmarks;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * When each of {@code n} scheduled items was due and when it actually fired, on
 * {@link System#nanoTime()}, and the accuracy figures drawn from that.
 * <p>
 * {@link #scheduling(int, long)} is called by the scheduling thread just before the
 * contender is asked to schedule item {@code i}, so the contender's own due time is at or
 * after the one recorded here: an item reported early fired before the contender's own
 * deadline, too. {@link #fired(int)} is called by the firing threads (consumers or the
 * timer's thread), one at a time under this log's lock; the latch publishes each first
 * firing to {@link #awaitAll}.
 */
final class FiringLog {

	private final long[] dueNanos;

	private final long[] firedNanos;

	private final CountDownLatch unfired;

	/** Firings of an item that had fired already; guarded by this. */
	private int duplicates;

	FiringLog(int items) {
		this.dueNanos = new long[items];
		this.firedNanos = new long[items];
		this.unfired = new CountDownLatch(items);
	}

	void scheduling(int item, long delayNanos) {
		this.dueNanos[item] = System.nanoTime() + delayNanos;
	}

	/**
	 * Logs when an item was due, as another process of this machine read it on
	 * {@link System#nanoTime()}'s clock (see {@link #fired(int, long)}). Call before
	 * {@link #awaitAll}.
	 * @param item the item
	 * @param dueNanos when it was due
	 */
	void scheduled(int item, long dueNanos) {
		this.dueNanos[item] = dueNanos;
	}

	void fired(int item) {
		fired(item, System.nanoTime());
	}

	/**
	 * Logs a firing seen at {@code nowNanos} on {@link System#nanoTime()}, possibly by
	 * another process of this machine (the clock is the machine's on Linux).
	 * @param item the item
	 * @param nowNanos when it fired
	 */
	synchronized void fired(int item, long nowNanos) {
		if (this.firedNanos[item] != 0) {
			this.duplicates++;
			return;
		}
		this.firedNanos[item] = nowNanos;
		this.unfired.countDown();
	}

	/**
	 * Waits until every item has fired, or until {@code grace} after the latest due time.
	 * @param graceNanos how long to wait past the latest due time
	 * @throws InterruptedException if interrupted
	 */
	void awaitAll(long graceNanos) throws InterruptedException {
		long lastDueNanos = Arrays.stream(this.dueNanos).max().orElse(System.nanoTime());
		this.unfired.await(Math.max(0, lastDueNanos + graceNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

	/**
	 * Fills {@code accuracy} with this log's figures and the iteration's garbage
	 * collections, each times {@code share} (see {@link Figures}). Call once the firing
	 * threads have stopped.
	 * @param accuracy the counters to fill
	 * @param share the weight of this iteration
	 * @param gc the collections from the first scheduling to the end of the firings
	 */
	void report(FiringAccuracyBenchmark.Accuracy accuracy, double share, GcTotals gc) {
		Summary summary = summary();
		accuracy.early = summary.early() * share;
		accuracy.lost = summary.lost() * share;
		accuracy.duplicates = summary.duplicates() * share;
		accuracy.maxEarlyMicros = micros(summary.maxEarlyNanos()) * share;
		accuracy.p50LatenessMicros = micros(summary.p50LatenessNanos()) * share;
		accuracy.p99LatenessMicros = micros(summary.p99LatenessNanos()) * share;
		accuracy.maxLatenessMicros = micros(summary.maxLatenessNanos()) * share;
		accuracy.gcCollections = gc.collections() * share;
		accuracy.gcMillis = gc.millis() * share;
	}

	/**
	 * Returns this log's figures. Call once the firing threads have stopped.
	 * @return the figures
	 */
	Summary summary() {
		long[] latenessNanos = new long[this.dueNanos.length];
		int fired = 0;
		int early = 0;
		long maxEarlyNanos = 0;
		for (int i = 0; i < this.dueNanos.length; i++) {
			if (this.firedNanos[i] == 0) {
				continue;
			}
			long lateNanos = this.firedNanos[i] - this.dueNanos[i];
			if (lateNanos < 0) {
				early++;
				maxEarlyNanos = Math.max(maxEarlyNanos, -lateNanos);
			}
			latenessNanos[fired++] = lateNanos;
		}
		Arrays.sort(latenessNanos, 0, fired);
		return new Summary(early, this.dueNanos.length - fired, this.duplicates, maxEarlyNanos,
				percentile(latenessNanos, fired, 0.50), percentile(latenessNanos, fired, 0.99),
				(fired > 0) ? latenessNanos[fired - 1] : 0);
	}

	static double micros(long nanos) {
		return nanos / 1_000.0;
	}

	private static long percentile(long[] sorted, int count, double fraction) {
		if (count == 0) {
			return 0;
		}
		return sorted[Math.min(count - 1, (int) Math.ceil(fraction * count) - 1)];
	}

	/**
	 * The figures of one log: items fired before their due time and by how much at most,
	 * items not fired, second firings, and lateness percentiles (nanoseconds; early items
	 * count with a negative lateness).
	 */
	record Summary(int early, int lost, int duplicates, long maxEarlyNanos, long p50LatenessNanos,
			long p99LatenessNanos, long maxLatenessNanos) {
	}

}
