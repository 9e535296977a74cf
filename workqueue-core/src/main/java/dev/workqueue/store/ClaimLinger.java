package dev.workqueue.store;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * When and how long the leader of a handle's next claim lingers for the consumers the
 * previous claim handed an item ({@link ItemTaker}'s linger): a worker's next look comes
 * right after its item when the work is short and its done rides with the look, so their
 * asks, and the dones they owe, can join this claim instead of waiting a whole claim for
 * the next one. Without it a backlog is drained by claims that alternate between two
 * halves of the consumers (each returns while the other half's claim is in flight), so
 * each carries half the items it could in the same round trip. A real-time performance
 * device, not queue semantics: every time is the system clock's ({@code Clock.system()}).
 * <p>
 * <b>The bound.</b> A leader waits until every one of them is back, at most half a
 * claim's smoothed round trip after the previous answer, clamped to [0,
 * {@link #MAX_NANOS}], and at most its own remaining timeout. None waits after a claim
 * that leased fewer items than it asked for (the store had no more ready: consumers
 * waiting for producers, say), when no queued ask wants an item, or once shutting down.
 * <p>
 * <b>Backing off.</b> A linger that ends having caught none of them (their next asks come
 * later than its bound: long work, or a done sent alone before the next get) was only a
 * delay: the next full claims go without one, 1, then 2, 4, … up to {@link #MAX_BACKOFF}
 * of them after each such linger in a row, and the first linger that catches one starts
 * over. So where it cannot pay it costs at most one bound in {@code MAX_BACKOFF + 1}
 * claims, and where it pays it is back within that many claims.
 * <p>
 * <b>Concurrency.</b> The count of consumers out is atomic (any consumer counts itself
 * back). The rest is asked and judged by one claim's leader at a time, under its group's
 * lock and then in its write, which the group orders: plain fields, and volatile ones for
 * what a claim's answer notes.
 */
final class ClaimLinger {

	/** The longest a leader lingers. */
	static final long MAX_NANOS = 1_000_000;

	/** The most full claims made without a linger after lingers that caught no one. */
	static final int MAX_BACKOFF = 64;

	/**
	 * The consumers the latest claim handed an item that have not come back since
	 * (approximate: any consumer that asks, or leaves a take without asking, counts one
	 * back).
	 */
	private final AtomicInteger out = new AtomicInteger();

	/** When the latest claim's answer came. */
	private volatile long answeredNanos;

	/** A claim's round trip, smoothed. */
	private volatile long roundTripNanos;

	/** Full claims still to go without a linger. */
	private int skipping;

	/** How many the latest linger that caught no one made skip. */
	private int backoff;

	/** The consumers out when the linger to judge began, or -1 if none did. */
	private int expected = -1;

	/**
	 * Notes a claim's answer, before the group lets the next leader in: its round trip,
	 * and the consumers it hands an item when it was full.
	 * @param sentNanos when it was sent
	 * @param answeredNanos when its answer came
	 * @param count how many items it asked for
	 * @param leased how many it leased
	 * @param wanting how many of its asks want an item
	 */
	void answered(long sentNanos, long answeredNanos, int count, int leased, int wanting) {
		long sample = Math.max(0, answeredNanos - sentNanos);
		long smoothed = this.roundTripNanos;
		this.roundTripNanos = (smoothed == 0) ? sample : smoothed + (sample - smoothed) / 8;
		this.answeredNanos = answeredNanos;
		// Only a full claim makes the next leader linger: the store had at least as many
		// ready, so the consumers coming back will find items too (a backlog); after a
		// short one they would only look at a store known empty.
		this.out.set((leased >= count) ? Math.min(leased, wanting) : 0);
	}

	/** Counts a consumer back: it is about to ask, or leaves without asking. */
	void back() {
		int was;
		do {
			was = this.out.get();
		}
		while (was > 0 && !this.out.compareAndSet(was, was - 1));
	}

	/**
	 * How long a leader about to take its batch may wait, noting the linger it starts to
	 * judge it.
	 * @param wanted whether a queued ask wants an item
	 * @param patienceNanos the leader's remaining timeout
	 * @param shuttingDown whether the handle is shutting down
	 * @param nowNanos now
	 * @return the bound, 0 for none
	 */
	long boundNanos(boolean wanted, long patienceNanos, boolean shuttingDown, long nowNanos) {
		int expecting = this.out.get();
		if (expecting == 0 || !wanted || patienceNanos <= 0 || shuttingDown) {
			return 0;
		}
		if (this.skipping > 0) {
			this.skipping--;
			return 0;
		}
		long sinceNanos = nowNanos - this.answeredNanos;
		long boundNanos = Math.min(this.roundTripNanos / 2 - sinceNanos, patienceNanos);
		// A clock read on another core may even lie a little before the answer's.
		boundNanos = Math.max(0, Math.min(boundNanos, MAX_NANOS));
		if (boundNanos > 0) {
			this.expected = expecting;
		}
		return boundNanos;
	}

	/**
	 * Whether consumers are still expected back.
	 * @return {@code true} while one the latest claim handed an item is out
	 */
	boolean expectsMore() {
		return this.out.get() > 0;
	}

	/**
	 * Judges the linger before this batch, if there was one, by whether a consumer it
	 * expected came back meanwhile. Called by the batch's leader before its claim is
	 * answered.
	 */
	void judge() {
		if (this.expected < 0) {
			return;
		}
		boolean caught = this.out.get() < this.expected;
		this.expected = -1;
		if (caught) {
			this.backoff = 0;
		}
		else {
			this.backoff = Math.min(Math.max(1, 2 * this.backoff), MAX_BACKOFF);
			this.skipping = this.backoff;
		}
	}

}
