package dev.workqueue.spring.metrics;

import java.lang.ref.WeakReference;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import org.jspecify.annotations.Nullable;

import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.time.Clock;

/**
 * A reading of a queue that the gauges of one queue share: its {@link WorkQueue#stats()},
 * or its {@linkplain dev.workqueue.PriorityQueue#readyLevels() ready levels}. A queue
 * whose state several processes share (Redis) is read once per
 * {@link #SHARED_MAX_AGE_NANOS}, so the gauges of one scrape cost one read, not one each;
 * a queue of this process is read afresh by every gauge, as that costs no round trip.
 * <p>
 * Holds the queue weakly: a gauge of a discarded queue reads {@code NaN}. Thread-safe.
 *
 * @param <S> what is read
 */
final class QueueStatsReading<S> {

	/** Longer than any scrape takes to read the gauges, shorter than any interval. */
	static final long SHARED_MAX_AGE_NANOS = 500_000_000L;

	private final WeakReference<WorkQueue<?>> queue;

	private final long maxAgeNanos;

	private final Clock clock;

	private final Function<WorkQueue<?>, S> reader;

	private final S none;

	private @Nullable S stats;

	private long readAtNanos;

	/**
	 * Creates a reading.
	 * @param queue the queue to read
	 * @param clock when the reading was taken
	 * @param reader reads the queue
	 * @param none what a handle that does not report the shared figures reads
	 */
	QueueStatsReading(WorkQueue<?> queue, Clock clock, Function<WorkQueue<?>, S> reader, S none) {
		this.queue = new WeakReference<>(queue);
		this.maxAgeNanos = queue.capability(SharedWorkQueue.class).isPresent() ? SHARED_MAX_AGE_NANOS : 0;
		this.clock = clock;
		this.reader = reader;
		this.none = none;
	}

	/**
	 * Returns a figure of the reading.
	 * @param figure the figure
	 * @return the figure, or {@code NaN} once the queue is gone
	 */
	double read(ToDoubleFunction<S> figure) {
		S stats = stats(false);
		return (stats != null) ? figure.applyAsDouble(stats) : Double.NaN;
	}

	/**
	 * Returns a figure of the shared state of the queue if this process reports it:
	 * always for a queue of this process; for a shared queue, only from the one handle
	 * that holds the reporter role, so that summing a gauge over processes counts each
	 * item once.
	 * @param figure the figure
	 * @return the figure, that of the {@code none} reading when another process reports
	 * it, or {@code NaN} once the queue is gone
	 */
	double readShared(ToDoubleFunction<S> figure) {
		S stats = stats(true);
		return (stats != null) ? figure.applyAsDouble(stats) : Double.NaN;
	}

	private synchronized @Nullable S stats(boolean onlyIfReporter) {
		WorkQueue<?> queue = this.queue.get();
		if (queue == null) {
			return null;
		}
		if (onlyIfReporter
				&& !queue.capability(SharedWorkQueue.class).map(SharedWorkQueue::reportsSharedGauges).orElse(true)) {
			return this.none;
		}
		long now = this.clock.nanoTime();
		if (this.stats == null || now - this.readAtNanos >= this.maxAgeNanos) {
			this.stats = this.reader.apply(queue);
			this.readAtNanos = now;
		}
		return this.stats;
	}

}
