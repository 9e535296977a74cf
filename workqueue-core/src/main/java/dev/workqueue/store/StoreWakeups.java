package dev.workqueue.store;

/**
 * How a store's consumers hear of items made ready by other instances: the one part of
 * the {@link ReadySignal} that differs between stores, and a driver interface a store
 * implements. PostgreSQL hears of each item queued ({@code LISTEN}/{@code NOTIFY}) but
 * not of a delayed row falling due, so one waiting consumer looks on its own now and then
 * ({@link #everyNotice}); Redis announces both on pub/sub, or, on a standalone server,
 * hands each wake-up to one waiting consumer of all the instances through a wake list,
 * which this driver answers while it does.
 * <p>
 * Part of the shared-store engine, used by store modules; may change before 1.0.
 * Implementations are thread-safe, and their answers are quick: the signal asks under its
 * lock.
 */
public interface StoreWakeups {

	/**
	 * A look interval meaning that nobody looks on their own: the store announces all.
	 */
	long NO_TIMED_LOOKS = Long.MAX_VALUE;

	/**
	 * How long, after a look found nothing, one waiting consumer (the leader) waits
	 * before it looks on its own: for a store whose delayed items fall due without a
	 * notice. Asked once, when the signal is made.
	 * @return the interval in nanoseconds, positive, or {@link #NO_TIMED_LOOKS}
	 */
	long lookIntervalNanos();

	/**
	 * Whether the store hands the wake-ups out itself now, each to one waiting consumer
	 * of all the instances: then a look that took all it asked for leaves the next
	 * wake-up to the store (its call armed it), and notices of items queued are not for
	 * this signal.
	 * @return whether the store hands the wake-ups out
	 */
	boolean handsOutWakeups();

	/**
	 * A consumer of the handle starts waiting while none did: a store that hands the
	 * wake-ups out asks for one now. Called under the signal's lock: must not block, nor
	 * call the signal.
	 */
	void firstWaiting();

	/**
	 * The wake-ups of a store that sends a notice for every item queued, and whose
	 * consumers look on their own for the items that fall due.
	 * @param lookIntervalNanos how long the leader waits after a look found nothing,
	 * positive, or {@link #NO_TIMED_LOOKS}
	 * @return the wake-ups
	 */
	static StoreWakeups everyNotice(long lookIntervalNanos) {
		if (lookIntervalNanos <= 0) {
			throw new IllegalArgumentException("lookIntervalNanos must be positive: " + lookIntervalNanos);
		}
		return new StoreWakeups() {

			@Override
			public long lookIntervalNanos() {
				return lookIntervalNanos;
			}

			@Override
			public boolean handsOutWakeups() {
				return false;
			}

			@Override
			public void firstWaiting() {
			}

		};
	}

}
