package dev.workqueue.benchmarks;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts items produced and consumed by the threads of a hand-off benchmark, so that
 * producers can stay a bounded distance ahead of consumers.
 * <p>
 * Without a bound a producer that outruns its consumer grows the queue for the whole
 * iteration, so that the benchmark measures a queue of millions of items and the garbage
 * collector. Each thread owns one slot, padded to its own cache lines, holding its
 * running total; it writes it with a plain ordered store (no atomic instruction on the
 * hot path) and producers read the sum now and then.
 */
final class Backlog {

	static final int MAX_PRODUCERS = 4;

	static final int MAX_CONSUMERS = 4;

	/**
	 * Longs between two slots: 128 bytes, so that no two threads write one cache line.
	 */
	private static final int PAD = 16;

	private final AtomicLongArray totals = new AtomicLongArray((MAX_PRODUCERS + MAX_CONSUMERS + 1) * PAD);

	/** Produced, never consumed, in earlier iterations; published by JMH between them. */
	private long abandoned;

	void produced(int producer, long total) {
		this.totals.lazySet((1 + producer) * PAD, total);
	}

	void consumed(int consumer, long total) {
		this.totals.lazySet((1 + MAX_PRODUCERS + consumer) * PAD, total);
	}

	/**
	 * Returns the items produced and not yet consumed in this iteration.
	 * @return the backlog
	 */
	long size() {
		long produced = 0;
		for (int i = 0; i < MAX_PRODUCERS; i++) {
			produced += this.totals.get((1 + i) * PAD);
		}
		long consumed = 0;
		for (int i = 0; i < MAX_CONSUMERS; i++) {
			consumed += this.totals.get((1 + MAX_PRODUCERS + i) * PAD);
		}
		return produced - consumed - this.abandoned;
	}

	/**
	 * Writes off what the iteration left in its queue, which is discarded with it. Called
	 * when every thread of the group has finished the iteration.
	 */
	void settle() {
		this.abandoned += size();
	}

}
