package dev.workqueue.spring.metrics;

import java.lang.ref.WeakReference;
import java.util.function.ToDoubleFunction;

import org.jspecify.annotations.Nullable;

import dev.workqueue.SharedWorkQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.time.Clock;

/**
 * The {@link WorkQueue#stats()} reading that the gauges of one queue share. A queue whose
 * state several processes share (Redis) is read once per {@link #SHARED_MAX_AGE_NANOS},
 * so the gauges of one scrape cost one read, not one each; a queue of this process is
 * read afresh by every gauge, as that costs no round trip.
 * <p>
 * Holds the queue weakly: a gauge of a discarded queue reads {@code NaN}. Thread-safe.
 */
final class QueueStatsReading {

	/** Longer than any scrape takes to read the gauges, shorter than any interval. */
	static final long SHARED_MAX_AGE_NANOS = 500_000_000L;

	/** What a handle that does not report the shared figures reads. */
	private static final WorkQueueStats ZERO = new WorkQueueStats(0, 0, 0, 0, 0, 0, 0, 0);

	private final WeakReference<WorkQueue<?>> queue;

	private final long maxAgeNanos;

	private final Clock clock;

	private @Nullable WorkQueueStats stats;

	private long readAtNanos;

	QueueStatsReading(WorkQueue<?> queue, Clock clock) {
		this.queue = new WeakReference<>(queue);
		this.maxAgeNanos = SharedWorkQueue.of(queue).isPresent() ? SHARED_MAX_AGE_NANOS : 0;
		this.clock = clock;
	}

	/**
	 * Returns a figure of the queue's stats.
	 * @param figure the figure
	 * @return the figure, or {@code NaN} once the queue is gone
	 */
	double read(ToDoubleFunction<WorkQueueStats> figure) {
		WorkQueueStats stats = stats(false);
		return (stats != null) ? figure.applyAsDouble(stats) : Double.NaN;
	}

	/**
	 * Returns a figure of the shared state of the queue if this process reports it:
	 * always for a queue of this process; for a shared queue, only from the one handle
	 * that holds the reporter role, so that summing a gauge over processes counts each
	 * item once.
	 * @param figure the figure
	 * @return the figure, 0 when another process reports it, or {@code NaN} once the
	 * queue is gone
	 */
	double readShared(ToDoubleFunction<WorkQueueStats> figure) {
		WorkQueueStats stats = stats(true);
		return (stats != null) ? figure.applyAsDouble(stats) : Double.NaN;
	}

	private synchronized @Nullable WorkQueueStats stats(boolean onlyIfReporter) {
		WorkQueue<?> queue = this.queue.get();
		if (queue == null) {
			return null;
		}
		if (onlyIfReporter && !SharedWorkQueue.of(queue).map(SharedWorkQueue::reportsSharedGauges).orElse(true)) {
			return ZERO;
		}
		long now = this.clock.nanoTime();
		if (this.stats == null || now - this.readAtNanos >= this.maxAgeNanos) {
			this.stats = queue.stats();
			this.readAtNanos = now;
		}
		return this.stats;
	}

}
