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
 * <b>The bound</b> and the <b>backing off</b> are {@link LingerPace}'s: a leader waits
 * until every one of them is back, within that bound and its own remaining timeout, and a
 * linger that caught none of them makes the next full claims go without one. None waits
 * after a claim that leased fewer items than it asked for (the store had no more ready:
 * consumers waiting for producers, say), when no queued ask wants an item, or once
 * shutting down.
 * <p>
 * <b>Concurrency.</b> The count of consumers out is atomic (any consumer counts itself
 * back). The rest is asked and judged by one claim's leader at a time, under its group's
 * lock and then in its write, which the group orders.
 */
final class ClaimLinger {

	/**
	 * The consumers the latest claim handed an item that have not come back since
	 * (approximate: any consumer that asks, or leaves a take without asking, counts one
	 * back).
	 */
	private final AtomicInteger out = new AtomicInteger();

	/** The bound and the backing off. */
	private final LingerPace pace = new LingerPace();

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
		this.pace.answered(sentNanos, answeredNanos);
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
		long boundNanos = this.pace.boundNanos(patienceNanos, nowNanos);
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
		this.pace.judge(caught);
	}

}
