package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.redis.LeaseBook.Holding;
import dev.workqueue.redis.LeaseBook.Lease;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a queue handle ends its holds: {@code done} (fenced off when the lease was lost; a
 * parked lease and the copies a rule-breaking codec made are handed back, so the item
 * runs again after), hand-backs of one item or all, and the remembering of a lease whose
 * release failed ({@link #orphan}), which the {@link QueueTimer} then hands back: this
 * wakes it through its slot. Each counts as a call under way in the handle's
 * {@link HandleLifecycle}, and wakes a drain when the last hold ends.
 *
 * @param <T> the item type
 */
final class LeaseReleases<T> {

	private final QueueScripts scripts;

	private final LeaseBook<T> book;

	private final HandleLifecycle lifecycle;

	/** The queue's hook, guarded; it takes durations only if it records them. */
	private final WorkQueueMetrics metrics;

	private final Clock clock;

	/** The slot of the handle's timed work, which hands back what could not be. */
	private final TimerThread.Slot timer;

	LeaseReleases(QueueScripts scripts, LeaseBook<T> book, HandleLifecycle lifecycle, WorkQueueMetrics metrics,
			Clock clock, TimerThread.Slot timer) {
		this.scripts = scripts;
		this.book = book;
		this.lifecycle = lifecycle;
		this.metrics = metrics;
		this.clock = clock;
		this.timer = timer;
	}

	/** The end of a worker's hold: {@code done}, fenced off if its lease was lost. */
	void done(T item) {
		Lease lease = finishForNextGet(item);
		if (lease != null) {
			sendDone(lease);
		}
	}

	/**
	 * Ends a worker's hold of an item whose {@code done} goes to Redis with the worker's
	 * next get: returns the lease for that script to end when the handle holds it live;
	 * otherwise ends the hold as {@code done} does and returns {@code null}. A lease
	 * returned keeps a call under way, so that the handle keeps its link until the done
	 * is sent: the caller ends it with {@link #doneSent()} (or {@link #sendDone}).
	 * @param item the item
	 * @return the lease to end, or {@code null}
	 */
	Lease finishForNextGet(T item) {
		Objects.requireNonNull(item, "item");
		this.lifecycle.enterAlways();
		Lease owed = null;
		try {
			Holding holding = this.book.finish(item);
			if (holding == null) {
				return null;
			}
			if (this.metrics.recordsDurations()) {
				this.metrics.done(this.clock.nanoTime() - holding.lease.startedNanos());
			}
			handBackCopies(holding);
			Lease parked = holding.parked;
			if (parked != null) {
				// Leased again while this worker held it: it runs again, after.
				releaseOrOrphan(parked.encoded(), parked.token(), 0);
				return null;
			}
			owed = holding.lost ? null : holding.lease;
			return owed;
		}
		finally {
			if (owed == null) {
				afterRelease();
			}
		}
	}

	/**
	 * Ends in Redis a lease {@link #finishForNextGet} returned, alone. If this fails, the
	 * lease is no longer renewed: it runs out and the item comes back, at least once.
	 * @param lease the lease
	 */
	void sendDone(Lease lease) {
		try {
			this.scripts.run(this.scripts.layout().done, lease.encoded(), lease.token());
		}
		finally {
			doneSent();
		}
	}

	/** Ends the call a lease {@link #finishForNextGet} returned kept under way. */
	void doneSent() {
		afterRelease();
	}

	/** Hands every lease back, unprocessed. */
	int handBackAll() {
		this.lifecycle.enterAlways();
		try {
			List<Holding> all = this.book.finishAll();
			RedisQueueException first = null;
			for (Holding holding : all) {
				try {
					releaseLive(holding, 0);
				}
				catch (RedisQueueException ex) {
					first = (first != null) ? first : ex;
				}
			}
			if (first != null) {
				throw first;
			}
			return all.size();
		}
		finally {
			afterRelease();
		}
	}

	/** Hands one held item back, ready after {@code delay}. */
	boolean handBack(Object item, Duration delay) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		this.lifecycle.enterAlways();
		try {
			@SuppressWarnings("unchecked")
			Holding holding = this.book.finish((T) item);
			if (holding == null) {
				return false;
			}
			releaseLive(holding, Math.max(0, Nanos.of(delay)));
			return true;
		}
		finally {
			afterRelease();
		}
	}

	private void releaseLive(Holding holding, long delayNanos) {
		handBackCopies(holding);
		Lease live = holding.live();
		if (live != null) {
			releaseOrOrphan(live.encoded(), live.token(), (live == holding.parked) ? 0 : delayNanos);
		}
	}

	/**
	 * Hands back, ready at once, the copies of a holding's item under other encodings;
	 * one whose release fails is handed back by the timer (an orphan).
	 */
	private void handBackCopies(Holding holding) {
		for (Lease copy : holding.copies) {
			try {
				releaseOrOrphan(copy.encoded(), copy.token(), 0);
			}
			catch (RedisQueueException ex) {
				// Remembered: the timer hands it back, and reports the failure.
			}
		}
	}

	/**
	 * Hands a lease back; if that fails, the timer hands it back later (at once), so that
	 * the item is never leased to nobody while this handle lives.
	 * @throws RedisQueueException the failure, once the lease is remembered
	 */
	void releaseOrOrphan(String encoded, String token, long delayNanos) {
		try {
			this.scripts.run(this.scripts.layout().release, encoded, token, Delays.micros(delayNanos));
		}
		catch (RedisQueueException ex) {
			orphan(token, encoded);
			throw ex;
		}
	}

	/**
	 * Remembers a lease to hand back, and wakes the timed work that does it: its release
	 * failed, or a get never heard back, or heard back too late.
	 * @param token the lease's token
	 * @param encoded the item's identity, or {@code null} when unknown
	 */
	void orphan(String token, String encoded) {
		this.book.orphan(token, encoded);
		this.timer.wake();
	}

	/** A drain or the timer may be waiting for the last item to go. */
	private void afterRelease() {
		if (this.book.isEmpty()) {
			this.lifecycle.changed();
		}
		this.lifecycle.exit();
	}

}
