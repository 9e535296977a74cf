package dev.workqueue.store;

import java.util.Map;
import java.util.WeakHashMap;

import dev.workqueue.time.Clock;

/**
 * Where clocks given to builders stand on one store's time. A {@link Clock}'s readings
 * count from an arbitrary origin ({@link Clock#system()} starts near zero), so a store
 * cannot be sent them as they are: the first call that needs a clock's time on the store
 * reads the store's time, and from then on the clock's time on the store is that time
 * plus what the clock measured since. Every instance anchored so agrees with the others
 * up to half the round trip of its anchoring read (the quickest of {@value #READS}),
 * however far apart their clocks' origins are, and a {@code FakeClock} still steps the
 * store's time exactly. A store keeps one instance for the JVM and gives it only its read
 * of its time ({@link StoreTimeRead}).
 * <p>
 * One anchor per clock object (its handles and limiters share it, so that they agree
 * exactly), kept until the clock is collected. Thread-safe: the anchors are guarded by
 * the map's lock, never held while reading; two threads that anchor the same clock at
 * once both read the store's time, and the first to record its reading wins.
 * <p>
 * Part of the shared-store engine, used by store modules; may change before 1.0.
 */
public final class ClockAnchors {

	/**
	 * Reads of the store's time an anchoring makes: the one answered in the shortest time
	 * is kept, and its time taken as read halfway through, so that the anchor errs by at
	 * most half that round trip (a {@code FakeClock} does not move meanwhile: any read is
	 * exact).
	 */
	public static final int READS = 3;

	/** The store's time minus each clock's, in µs; guarded by itself. */
	private final Map<Clock, Long> offsets = new WeakHashMap<>();

	/**
	 * The store's time minus the clock's, in µs, if the clock is anchored already. Does
	 * not block on the store (stores call it before building their read, so that a clock
	 * anchored allocates nothing).
	 * @param clock the given clock
	 * @return the offset, or {@code null} if not anchored
	 */
	public Long knownOffsetMicros(Clock clock) {
		synchronized (this.offsets) {
			return this.offsets.get(clock);
		}
	}

	/**
	 * Anchors the clock: reads the store's time {@value #READS} times, measuring each
	 * read with the clock, and records the offset of the quickest unless another thread
	 * recorded one first. Blocks for the reads.
	 * @param <X> what the read may throw
	 * @param clock the given clock
	 * @param read one read of the store's time
	 * @return the store's time minus the clock's, in µs, as recorded
	 * @throws X if a read fails (nothing is recorded)
	 */
	public <X extends Exception> long anchor(Clock clock, StoreTimeRead<X> read) throws X {
		long offset = 0;
		long bestWindowNanos = Long.MAX_VALUE;
		for (int attempt = 0; attempt < READS; attempt++) {
			long beforeNanos = clock.nanoTime();
			long storeMicros = read.storeMicros();
			long windowNanos = clock.nanoTime() - beforeNanos;
			if (windowNanos < bestWindowNanos) {
				bestWindowNanos = windowNanos;
				offset = storeMicros - Math.floorDiv(beforeNanos + windowNanos / 2, 1000);
			}
		}
		long anchored = offset;
		synchronized (this.offsets) {
			return this.offsets.computeIfAbsent(clock, (c) -> anchored);
		}
	}

	/**
	 * One read of a store's time, the only part of anchoring a store writes. Called by
	 * the thread anchoring, blocking for the store's answer.
	 *
	 * @param <X> what the read may throw
	 */
	@FunctionalInterface
	public interface StoreTimeRead<X extends Exception> {

		/**
		 * Reads the store's time.
		 * @return the store's time, µs since the epoch
		 * @throws X if the read fails
		 */
		long storeMicros() throws X;

	}

}
