package dev.workqueue.store;

/**
 * How long a group's leader may linger for callers it expects back, and when it goes
 * without: the part of a linger that does not depend on what it waits for, shared by
 * {@link ClaimLinger} and {@link CallerLinger}. A real-time performance device, not queue
 * semantics: every time it is given is the system clock's ({@code Clock.system()}).
 * <p>
 * <b>The bound.</b> Half a batch's smoothed round trip after the previous batch's answer
 * (callers that come back later than that would gain less by joining than the others lose
 * by waiting), clamped to [0, {@link #MAX_NANOS}], and at most the leader's own remaining
 * patience.
 * <p>
 * <b>Backing off.</b> A linger that ends having caught none of the callers it waited for
 * was only a delay, so the next ones that would linger go without: 1, then 2, 4, … up to
 * {@link #MAX_BACKOFF} of them after each such linger in a row; the first linger that
 * catches one starts over. Where lingering never pays it costs, once backed off fully,
 * one bound in {@code MAX_BACKOFF + 1} batches (one in 2, then 3, 5, … before), and where
 * it starts to pay again it is back within that many.
 * <p>
 * <b>Concurrency.</b> The answer's times are volatile (a batch's writer notes them, the
 * next leader reads them); the backoff is asked and judged by one leader at a time, in
 * the order its group gives: plain fields.
 */
final class LingerPace {

	/** The longest a leader lingers. */
	static final long MAX_NANOS = 1_000_000;

	/** The most lingers skipped after lingers that caught no one. */
	static final int MAX_BACKOFF = 64;

	/** When the latest batch's answer came. */
	private volatile long answeredNanos;

	/** A batch's round trip, smoothed. */
	private volatile long roundTripNanos;

	/** Lingers still to skip. */
	private int skipping;

	/** How many the latest linger that caught no one made skip. */
	private int backoff;

	/**
	 * Notes a batch's answer, before the group lets the next leader in.
	 * @param sentNanos when the batch was sent
	 * @param answeredNanos when its answer came
	 */
	void answered(long sentNanos, long answeredNanos) {
		long sample = Math.max(0, answeredNanos - sentNanos);
		long smoothed = this.roundTripNanos;
		this.roundTripNanos = (smoothed == 0) ? sample : smoothed + (sample - smoothed) / 8;
		this.answeredNanos = answeredNanos;
	}

	/**
	 * How long a leader that would linger may, counting a linger skipped while backing
	 * off.
	 * @param patienceNanos the leader's remaining patience
	 * @param nowNanos now
	 * @return the bound, 0 for none
	 */
	long boundNanos(long patienceNanos, long nowNanos) {
		if (this.skipping > 0) {
			this.skipping--;
			return 0;
		}
		long sinceNanos = nowNanos - this.answeredNanos;
		long boundNanos = Math.min(this.roundTripNanos / 2 - sinceNanos, patienceNanos);
		// A clock read on another core may even lie a little before the answer's.
		return Math.max(0, Math.min(boundNanos, MAX_NANOS));
	}

	/**
	 * Judges a linger that was made (its bound was above 0).
	 * @param caught whether it caught one of the callers it waited for
	 */
	void judge(boolean caught) {
		if (caught) {
			this.backoff = 0;
		}
		else {
			this.backoff = Math.min(Math.max(1, 2 * this.backoff), MAX_BACKOFF);
			this.skipping = this.backoff;
		}
	}

}
