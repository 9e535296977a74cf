package dev.workqueue.timer;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The slots of a hierarchical timing wheel, in tick time, without threads or clocks
 * (Varghese &amp; Lauck's scheme 7, with overflow wheels created on demand as Kafka's
 * {@code TimingWheel} does).
 * <p>
 * Time is counted in ticks of {@code intervalNanos} since the wheel's origin. An entry
 * due at {@code dueNanos} belongs to tick {@code ceil(dueNanos / intervalNanos)}, the
 * first tick boundary at or after its due time, so it is never handed out early and at
 * most one interval late. {@link #advance(long)} moves {@link #currentTick()} forward and
 * hands out the entries of every tick reached, tick by tick.
 * <p>
 * Level 0 has {@code numSlots} slots of one tick; level {@code n > 0} has 64 slots of
 * {@code numSlots * 64^(n-1)} ticks. An entry goes to the lowest level whose span reaches
 * its tick; when the clock reaches the start of an upper slot, that slot's entries
 * cascade to lower levels, at most once per level. A timer of any delay thus costs O(1)
 * to add and remove and O(levels) to fire, whatever {@code numSlots} is (even 1), and a
 * timer due in years sits in a slot of level 5 or so instead of being scanned every
 * revolution as with go-zero's circle counts. Each level keeps a bitmap of slots that may
 * be occupied (set on insert, cleared lazily when found empty), so
 * {@link #nextWorkTick()} finds the next occupied slot without visiting empty ones, and a
 * wheel with nothing due in an hour costs nothing for an hour.
 * <p>
 * Entries of the same tick are handed out in due-time order (a stable sort, skipped when
 * they are already in order). Cascading is done in chunks of {@value #CASCADE_BUDGET}
 * entries so that the caller can release its lock between chunks.
 * <p>
 * Not thread-safe: guarded by the timing wheel's lock.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class HierarchicalWheel<K, V> {

	/** Most entries cascaded by one {@link #advance(long)} call. */
	static final int CASCADE_BUDGET = 4096;

	/** Upper levels have 2^6 slots: a bucket's slot is its low 6 bits. */
	private static final int UPPER_BITS = 6;

	private static final int UPPER_SLOTS = 1 << UPPER_BITS;

	private static final Comparator<TimerEntry<?, ?>> BY_DUE_TIME = Comparator.comparingLong((e) -> e.dueNanos);

	private final long intervalNanos;

	private final int numSlots;

	/** {@code numSlots - 1} if {@code numSlots} is a power of two, else -1. */
	private final int slotMask;

	/** Level 0: {@code numSlots} slots of one tick. */
	private final Level<K, V> first;

	/**
	 * Level {@code j + 1}: 64 slots of {@code 2^(6j)} revolutions of level 0 each, so
	 * that bucket numbers are shifts of the revolution number, not divisions.
	 */
	private Level<K, V>[] upper;

	/** Entries whose tick has been reached, waiting to be handed out. */
	private final TimerEntry<K, V> expiring = TimerEntry.sentinel();

	/** Entries taken from an upper slot that has been reached, waiting to move down. */
	private final TimerEntry<K, V> cascading = TimerEntry.sentinel();

	/** Every tick up to this one has been reached. */
	private long currentTick;

	/** {@code currentTick / numSlots}. */
	private long currentRevolution;

	@SuppressWarnings("unchecked")
	HierarchicalWheel(long intervalNanos, int numSlots) {
		this.intervalNanos = intervalNanos;
		this.numSlots = numSlots;
		this.slotMask = ((numSlots & (numSlots - 1)) == 0) ? numSlots - 1 : -1;
		this.first = new Level<>(numSlots);
		this.upper = (Level<K, V>[]) new Level<?, ?>[0];
	}

	long currentTick() {
		return this.currentTick;
	}

	/** Returns the tick an entry due at {@code dueNanos} (not negative) belongs to. */
	long tickOf(long dueNanos) {
		long tick = dueNanos / this.intervalNanos;
		return (tick * this.intervalNanos == dueNanos) ? tick : tick + 1;
	}

	/** Returns the start of {@code tick}, saturated at {@code Long.MAX_VALUE}. */
	long startNanosOf(long tick) {
		return (tick > Long.MAX_VALUE / this.intervalNanos) ? Long.MAX_VALUE : tick * this.intervalNanos;
	}

	/**
	 * Puts an unlinked entry where its due time says: with the expiring entries if its
	 * tick has been reached, else in a slot.
	 * @param entry the entry, not in any list
	 * @return the entry's tick
	 */
	long schedule(TimerEntry<K, V> entry) {
		long tick = tickOf(entry.dueNanos);
		if (tick <= this.currentTick) {
			entry.linkBefore(this.expiring);
		}
		else if (tick - this.currentTick <= this.numSlots) {
			this.first.add(entry, slotOf(tick));
		}
		else {
			long revolution = tick / this.numSlots;
			for (int level = 0;; level++) {
				int shift = level * UPPER_BITS;
				long bucket = revolution >>> shift;
				// Holds by level 10 (shift 60) at the latest: there a bucket is at most
				// 7, so no level above it is ever made.
				if (bucket - (this.currentRevolution >>> shift) <= UPPER_SLOTS) {
					upperLevel(level).add(entry, (int) bucket & (UPPER_SLOTS - 1));
					break;
				}
			}
		}
		return tick;
	}

	/**
	 * Returns the first tick at which there is work: the current tick if entries wait to
	 * be handed out or to cascade, else the start of the next occupied slot.
	 * @return the tick, or {@code Long.MAX_VALUE} if the wheel is empty
	 */
	long nextWorkTick() {
		if (!this.expiring.isEmptyList() || !this.cascading.isEmptyList()) {
			return this.currentTick;
		}
		long tick = nextSlotTick();
		return (tick >= 0) ? tick : Long.MAX_VALUE;
	}

	/**
	 * Moves towards {@code nowTick}: cascades the slots reached, and returns the entries
	 * of the first tick reached that has any, or {@code null} once every tick up to
	 * {@code nowTick} is done or the cascade budget is spent (then
	 * {@link #nextWorkTick()} is still at most {@code nowTick}).
	 * @param nowTick the tick the clock has reached, below {@code Long.MAX_VALUE} (which
	 * {@link #nextWorkTick()} uses for "never")
	 * @return the handed-out entries in due-time order, chained by
	 * {@link TimerEntry#next} and in no list any more, or {@code null}
	 */
	TimerEntry<K, V> advance(long nowTick) {
		int budget = CASCADE_BUDGET;
		while (true) {
			while (!this.cascading.isEmptyList()) {
				if (budget-- == 0) {
					return null;
				}
				TimerEntry<K, V> entry = this.cascading.next;
				entry.unlink();
				schedule(entry);
			}
			if (!this.expiring.isEmptyList()) {
				return takeExpiring();
			}
			long tick = nextSlotTick();
			if (tick < 0 || tick > nowTick) {
				// No slot starts in between, so every level's slots stay valid.
				moveTo(Math.max(this.currentTick, nowTick));
				return null;
			}
			moveTo(tick);
			if (this.currentRevolution * this.numSlots == tick) {
				for (int level = this.upper.length - 1; level >= 0; level--) {
					int shift = level * UPPER_BITS;
					if ((this.currentRevolution & ((1L << shift) - 1)) == 0) {
						int slot = (int) (this.currentRevolution >>> shift) & (UPPER_SLOTS - 1);
						this.upper[level].take(slot, this.cascading);
					}
				}
			}
			this.first.take(slotOf(tick), this.expiring);
		}
	}

	private void moveTo(long tick) {
		this.currentTick = tick;
		this.currentRevolution = tick / this.numSlots;
	}

	private int slotOf(long tick) {
		return (this.slotMask >= 0) ? (int) tick & this.slotMask : (int) (tick % this.numSlots);
	}

	/** Returns the start of the first occupied slot, or -1 if there is none. */
	private long nextSlotTick() {
		long earliest = -1;
		int offset = this.first.nextOccupied(slotOf(this.currentTick + 1));
		if (offset >= 0) {
			earliest = this.currentTick + 1 + offset;
		}
		for (int level = 0; level < this.upper.length; level++) {
			int shift = level * UPPER_BITS;
			long currentBucket = this.currentRevolution >>> shift;
			offset = this.upper[level].nextOccupied((int) (currentBucket + 1) & (UPPER_SLOTS - 1));
			if (offset >= 0) {
				// At most the revolution of an entry in that slot: no overflow.
				long tick = ((currentBucket + 1 + offset) << shift) * this.numSlots;
				if (earliest < 0 || tick < earliest) {
					earliest = tick;
				}
			}
		}
		return earliest;
	}

	private TimerEntry<K, V> takeExpiring() {
		TimerEntry<K, V> sentinel = this.expiring;
		int count = 0;
		boolean sorted = true;
		long previousDueNanos = Long.MIN_VALUE;
		for (TimerEntry<K, V> entry = sentinel.next; entry != sentinel; entry = entry.next) {
			sorted &= entry.dueNanos >= previousDueNanos;
			previousDueNanos = entry.dueNanos;
			count++;
		}
		TimerEntry<K, V> head;
		if (sorted) {
			head = sentinel.next;
			sentinel.prev.next = null;
			for (TimerEntry<K, V> entry = head; entry != null; entry = entry.next) {
				entry.prev = null;
			}
		}
		else {
			head = sortedChain(sentinel, count);
		}
		sentinel.next = sentinel;
		sentinel.prev = sentinel;
		return head;
	}

	@SuppressWarnings("unchecked")
	private TimerEntry<K, V> sortedChain(TimerEntry<K, V> sentinel, int count) {
		TimerEntry<K, V>[] entries = (TimerEntry<K, V>[]) new TimerEntry<?, ?>[count];
		TimerEntry<K, V> entry = sentinel.next;
		for (int i = 0; i < count; i++) {
			entries[i] = entry;
			entry = entry.next;
		}
		Arrays.sort(entries, BY_DUE_TIME);
		for (int i = 0; i < count; i++) {
			entries[i].prev = null;
			entries[i].next = (i + 1 < count) ? entries[i + 1] : null;
		}
		return entries[0];
	}

	private Level<K, V> upperLevel(int index) {
		int length = this.upper.length;
		if (index >= length) {
			this.upper = Arrays.copyOf(this.upper, index + 1);
			for (int i = length; i <= index; i++) {
				this.upper[i] = new Level<>(UPPER_SLOTS);
			}
		}
		return this.upper[index];
	}

	/**
	 * The slots of one level, each a circular list, with a bitmap of the slots that may
	 * be occupied. Which bucket a slot holds is the wheel's business.
	 */
	private static final class Level<K, V> {

		private final TimerEntry<K, V>[] slots;

		/** Bit {@code s} is set if slot {@code s} may be occupied. */
		private final long[] occupied;

		@SuppressWarnings("unchecked")
		Level(int slotCount) {
			this.slots = (TimerEntry<K, V>[]) new TimerEntry<?, ?>[slotCount];
			for (int i = 0; i < slotCount; i++) {
				this.slots[i] = TimerEntry.sentinel();
			}
			this.occupied = new long[(slotCount + 63) >>> 6];
		}

		void add(TimerEntry<K, V> entry, int slot) {
			entry.linkBefore(this.slots[slot]);
			this.occupied[slot >>> 6] |= 1L << slot;
		}

		void take(int slot, TimerEntry<K, V> target) {
			this.slots[slot].moveAllTo(target);
			this.occupied[slot >>> 6] &= ~(1L << slot);
		}

		/**
		 * Returns how many slots after {@code start}, wrapping around, the first occupied
		 * one is, or -1 if none is.
		 */
		int nextOccupied(int start) {
			int slotCount = this.slots.length;
			int slot = occupiedSlot(start, slotCount);
			if (slot < 0) {
				slot = occupiedSlot(0, start);
			}
			if (slot < 0) {
				return -1;
			}
			return (slot >= start) ? slot - start : slot + slotCount - start;
		}

		/** First non-empty slot in {@code [from, to)}, clearing stale bits on the way. */
		private int occupiedSlot(int from, int to) {
			int slot = nextSetBit(from);
			while (slot >= 0 && slot < to) {
				if (!this.slots[slot].isEmptyList()) {
					return slot;
				}
				this.occupied[slot >>> 6] &= ~(1L << slot);
				slot = nextSetBit(slot + 1);
			}
			return -1;
		}

		private int nextSetBit(int from) {
			if (from >= this.slots.length) {
				return -1;
			}
			int word = from >>> 6;
			long bits = this.occupied[word] & (-1L << from);
			while (bits == 0) {
				if (++word == this.occupied.length) {
					return -1;
				}
				bits = this.occupied[word];
			}
			return (word << 6) + Long.numberOfTrailingZeros(bits);
		}

	}

}
