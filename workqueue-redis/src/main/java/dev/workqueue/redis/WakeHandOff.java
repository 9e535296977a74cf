package dev.workqueue.redis;

import dev.workqueue.store.StoreWakeups;

/**
 * How a Redis handle's consumers hear of items made ready elsewhere: by the queue's
 * pub/sub notices, which wake one consumer per instance, or, while the client's
 * {@link WakeWatch} waits on the queue's wake list (a standalone server), by the wake-ups
 * Redis hands out there, one waiting consumer of all the instances each. Redis announces
 * items falling due too (the timer's tick moves them), so nobody looks on their own.
 * <p>
 * Thread-safe: the watch's hook is volatile, set by the watch and read under the signal's
 * lock.
 */
final class WakeHandOff implements StoreWakeups {

	/**
	 * Told when the first consumer starts waiting, while Redis hands the wake-ups out;
	 * {@code null} while the notices come by pub/sub.
	 */
	private volatile Runnable firstWaiter;

	/**
	 * From now on Redis hands the wake-ups out: {@code firstWaiter} is told, under the
	 * signal's lock, whenever a consumer starts waiting while none did, and must not
	 * block; {@code null}: the notices come by pub/sub again.
	 * @param firstWaiter what to tell, or {@code null}
	 */
	void handOff(Runnable firstWaiter) {
		this.firstWaiter = firstWaiter;
	}

	@Override
	public long lookIntervalNanos() {
		return NO_TIMED_LOOKS;
	}

	@Override
	public boolean handsOutWakeups() {
		return this.firstWaiter != null;
	}

	@Override
	public void firstWaiting() {
		Runnable first = this.firstWaiter;
		if (first != null) {
			first.run();
		}
	}

}
