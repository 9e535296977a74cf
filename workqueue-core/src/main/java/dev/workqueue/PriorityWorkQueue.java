package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.internal.ItemTable;
import dev.workqueue.internal.KeyedEntry;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The {@link PriorityQueue}: one {@link Entry} per item, in up to three structures at
 * once, all guarded by one lock.
 * <ul>
 * <li><b>Ready</b> entries are linked twice: into their priority's {@link Bucket} (a
 * FIFO, the levels in a {@link TreeMap}, highest taken first) and into one list in the
 * order they became ready, whose head is the item ready longest, for the starvation
 * guard. Both are intrusive, so lining an entry up, raising its priority or taking it
 * allocates nothing and costs O(log levels).</li>
 * <li><b>Waiting</b> entries (a delay pending) have a {@link Wait}, in a {@link TreeSet}
 * by due time, with the earliest due and the highest priority of their delayed adds; only
 * delayed items allocate one.</li>
 * <li><b>Processing</b> entries are only flagged, with the priority of their dirty
 * adds.</li>
 * </ul>
 * An entry stays in the map while it is ready, processing or waiting, and only then.
 * <p>
 * <b>No thread of its own.</b> Consumers lead, as the JDK's {@code DelayQueue}: a
 * consumer moves the due entries itself, and when nothing is ready waits on the clock
 * until the earliest due time (a {@code FakeClock} step wakes it), its deadline, or a
 * signal. A new ready entry signals one waiting consumer, which signals the next if more
 * are ready; a new earliest due time wakes them all to wait for it.
 * <p>
 * Thread-safe; metrics hooks run after the lock is released. Actions before an add of
 * {@code x} happen before actions after the get that returns {@code x}, through the lock.
 *
 * @param <T> the item type
 */
final class PriorityWorkQueue<T> implements PriorityQueue<T>, WakeablePolls<T> {

	/**
	 * Empty levels are kept while there are at most this many, so that a queue cycling
	 * through a few priorities does not allocate a level each time one empties.
	 */
	private static final int KEPT_LEVELS = 64;

	/** Checks for a ready entry before a consumer parks; a few microseconds at most. */
	private static final int HAND_OFF_SPINS = 256;

	private static final VarHandle READY;

	static {
		try {
			READY = MethodHandles.lookup().findVarHandle(PriorityWorkQueue.class, "ready", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** A ready age the queue does not track. */
	private static final long UNTIMED = -1;

	/** The epoch of a plain get or poll, which {@link #wakePolls()} does not end. */
	private static final long NOT_WAKEABLE = Long.MIN_VALUE;

	private static final Comparator<Wait<?>> BY_DUE = Comparator.<Wait<?>>comparingLong((wait) -> wait.dueNanos)
		.thenComparingLong((wait) -> wait.order);

	private final String name;

	private final Clock clock;

	private final WorkQueueMetrics metrics;

	private final RateLimiter<? super T> limiter;

	/** Negative: strict priority. */
	private final long starvationNanos;

	/**
	 * Whether the queue reads its clock for ready and hand-out times: with metrics or a
	 * starvation guard (as BasicQueue reads it only with metrics). Without either, the
	 * clock is read only while delays wait, and the ready ages read {@link #UNTIMED}.
	 */
	private final boolean timed;

	private final ReentrantLock lock = new ReentrantLock();

	/** Consumers wait on it: an entry ready, an earlier due time, a wake-up, shutdown. */
	private final Condition changed = this.lock.newCondition();

	private final Condition drained = this.lock.newCondition();

	private final ItemTable<T, Entry<T>> entries = new ItemTable<>();

	private final TreeMap<Integer, Bucket<T>> levels = new TreeMap<>();

	private final TreeSet<Wait<T>> waiting = new TreeSet<>(BY_DUE);

	/** The highest level with ready entries, or {@code null} when none is ready. */
	private Bucket<T> highest;

	/** Levels with ready entries: none left means no level to look for. */
	private int nonEmptyLevels;

	/** The ready entry ready longest, and the one ready last. */
	private Entry<T> oldest;

	private Entry<T> newest;

	private long waitOrders;

	private int ready;

	private int processing;

	private int dirty;

	private long retries;

	private int waitingConsumers;

	private long shutDowns;

	private volatile boolean shuttingDown;

	private volatile long pollEpoch;

	PriorityWorkQueue(String name, Clock clock, WorkQueueMetrics metrics, RateLimiter<? super T> limiter,
			long starvationNanos) {
		this.name = name;
		this.clock = clock;
		this.metrics = metrics;
		this.limiter = limiter;
		this.starvationNanos = starvationNanos;
		this.timed = metrics != WorkQueueMetrics.NOOP || starvationNanos >= 0;
	}

	/** The clock's reading when a hand-out needs it or delays wait, else 0. */
	private long now() {
		return (this.timed || !this.waiting.isEmpty()) ? this.clock.nanoTime() : 0;
	}

	@Override
	public void add(T item, int priority) {
		Objects.requireNonNull(item, "item");
		PriorityQueue.checkPriority(priority);
		int added = 0;
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return;
			}
			long nowNanos = now();
			// What fell due lines up before this add: it became ready earlier.
			added = moveDue(nowNanos);
			if (add(entry(item), priority, nowNanos)) {
				added++;
			}
		}
		finally {
			this.lock.unlock();
			reportAdds(added);
		}
	}

	@Override
	public void addAfter(T item, Duration delay, int priority) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		PriorityQueue.checkPriority(priority);
		int added = 0;
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return;
			}
			this.retries++;
			long nowNanos = this.clock.nanoTime();
			added = moveDue(nowNanos);
			long delayNanos = Nanos.of(delay);
			if (delayNanos <= 0) {
				if (add(entry(item), priority, nowNanos)) {
					added++;
				}
			}
			else {
				wait(entry(item), Nanos.add(nowNanos, delayNanos), priority);
			}
		}
		finally {
			this.lock.unlock();
			reportAdds(added);
		}
		this.metrics.retried();
	}

	@Override
	public void addRateLimited(T item, int priority) {
		Objects.requireNonNull(item, "item");
		PriorityQueue.checkPriority(priority);
		if (!this.shuttingDown) {
			addAfter(item, this.limiter.when(item), priority);
		}
	}

	@Override
	public void forget(T item) {
		this.limiter.forget(Objects.requireNonNull(item, "item"));
	}

	@Override
	public int numRequeues(T item) {
		return this.limiter.numRequeues(Objects.requireNonNull(item, "item"));
	}

	/**
	 * The item's entry, a new one (in no structure yet) if it has none. Under the lock.
	 */
	private Entry<T> entry(T item) {
		Entry<T> entry = this.entries.get(item);
		if (entry == null) {
			entry = new Entry<>(item);
			this.entries.putIfAbsent(entry);
		}
		return entry;
	}

	/**
	 * client-go's add with priorities: dirty while processing (with the highest
	 * priority), raised while ready, ready at once otherwise. Under the lock.
	 * @return whether it counts as an add (client-go's {@code adds_total})
	 */
	private boolean add(Entry<T> entry, int priority, long nowNanos) {
		if (entry.processing) {
			if (entry.dirty) {
				entry.dirtyPriority = Math.max(entry.dirtyPriority, priority);
				return false;
			}
			entry.dirty = true;
			entry.dirtyPriority = priority;
			entry.queuedNanos = nowNanos;
			this.dirty++;
			return true;
		}
		if (entry.ready) {
			if (priority > entry.priority) {
				unlinkFromLevel(entry);
				entry.priority = priority;
				linkToLevel(entry);
			}
			return false;
		}
		entry.queuedNanos = nowNanos;
		makeReady(entry, (entry.wait != null) ? Math.max(priority, entry.wait.priority) : priority, nowNanos);
		return true;
	}

	/** Keeps the earlier due time and the higher priority. Under the lock. */
	private void wait(Entry<T> entry, long dueNanos, int priority) {
		Wait<T> wait = entry.wait;
		if (wait != null) {
			wait.priority = Math.max(wait.priority, priority);
			if (dueNanos >= wait.dueNanos) {
				return;
			}
			this.waiting.remove(wait);
		}
		else {
			wait = new Wait<>(entry, priority);
			entry.wait = wait;
		}
		wait.dueNanos = dueNanos;
		wait.order = this.waitOrders++;
		this.waiting.add(wait);
		if (this.waiting.first() == wait && this.waitingConsumers > 0) {
			// An earlier due time: every waiting consumer waits for it now.
			this.changed.signalAll();
		}
	}

	private void makeReady(Entry<T> entry, int priority, long nowNanos) {
		entry.ready = true;
		entry.priority = priority;
		entry.readyNanos = nowNanos;
		linkToLevel(entry);
		entry.orderPrev = this.newest;
		entry.orderNext = null;
		if (this.newest != null) {
			this.newest.orderNext = entry;
		}
		else {
			this.oldest = entry;
		}
		this.newest = entry;
		this.ready++;
		if (this.waitingConsumers > 0) {
			this.changed.signal();
		}
	}

	private void linkToLevel(Entry<T> entry) {
		Bucket<T> level = this.levels.computeIfAbsent(entry.priority, Bucket::new);
		entry.level = level;
		entry.levelPrev = level.tail;
		entry.levelNext = null;
		if (level.tail != null) {
			level.tail.levelNext = entry;
		}
		else {
			level.head = entry;
		}
		level.tail = entry;
		if (level.size++ == 0) {
			this.nonEmptyLevels++;
		}
		if (this.highest == null || level.priority > this.highest.priority) {
			this.highest = level;
		}
	}

	private void unlinkFromLevel(Entry<T> entry) {
		Bucket<T> level = entry.level;
		if (entry.levelPrev != null) {
			entry.levelPrev.levelNext = entry.levelNext;
		}
		else {
			level.head = entry.levelNext;
		}
		if (entry.levelNext != null) {
			entry.levelNext.levelPrev = entry.levelPrev;
		}
		else {
			level.tail = entry.levelPrev;
		}
		entry.levelPrev = null;
		entry.levelNext = null;
		entry.level = null;
		if (--level.size > 0) {
			return;
		}
		if (level == this.highest) {
			this.highest = (--this.nonEmptyLevels > 0) ? nextNonEmptyBelow(level.priority) : null;
		}
		else {
			this.nonEmptyLevels--;
		}
		if (this.levels.size() > KEPT_LEVELS) {
			this.levels.remove(level.priority);
		}
	}

	/**
	 * The highest level with ready entries below {@code priority}, or {@code null}. By
	 * key: TreeMap exports each entry it returns as a new object.
	 */
	private Bucket<T> nextNonEmptyBelow(int priority) {
		for (Integer key = this.levels.lowerKey(priority); key != null; key = this.levels.lowerKey(key)) {
			Bucket<T> level = this.levels.get(key);
			if (level.size > 0) {
				return level;
			}
		}
		return null;
	}

	private void unlinkFromOrder(Entry<T> entry) {
		if (entry.orderPrev != null) {
			entry.orderPrev.orderNext = entry.orderNext;
		}
		else {
			this.oldest = entry.orderNext;
		}
		if (entry.orderNext != null) {
			entry.orderNext.orderPrev = entry.orderPrev;
		}
		else {
			this.newest = entry.orderPrev;
		}
		entry.orderPrev = null;
		entry.orderNext = null;
	}

	@Override
	public Prioritized<T> getWithPriority() throws InterruptedException {
		return prioritized(take(false, 0, NOT_WAKEABLE));
	}

	@Override
	public Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return prioritized(take(true, Nanos.of(timeout), NOT_WAKEABLE));
	}

	/**
	 * Without the record of {@link #getWithPriority()}: nothing allocated per hand-out.
	 */
	@Override
	public T get() throws InterruptedException {
		return itemOf(take(false, 0, NOT_WAKEABLE));
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return itemOf(take(true, Nanos.of(timeout), NOT_WAKEABLE));
	}

	private static <T> T itemOf(Entry<T> taken) {
		return (taken != null) ? taken.item : null;
	}

	/**
	 * The taken entry with the priority it was handed out with. Read by the taker after
	 * the lock: only its own {@code done} changes that priority again.
	 */
	private static <T> Prioritized<T> prioritized(Entry<T> taken) {
		return (taken != null) ? new Prioritized<>(taken.item, taken.priority) : null;
	}

	@Override
	public long pollEpoch() {
		return this.pollEpoch;
	}

	@Override
	public T pollUnlessWoken(Duration timeout, long epoch) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return itemOf(take(true, Nanos.of(timeout), epoch));
	}

	@Override
	public Prioritized<T> pollWithPriorityUnlessWoken(Duration timeout, long epoch) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return prioritized(take(true, Nanos.of(timeout), epoch));
	}

	@Override
	public void wakePolls() {
		this.lock.lock();
		try {
			this.pollEpoch++;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private Entry<T> take(boolean bounded, long timeoutNanos, long epoch) throws InterruptedException {
		Entry<T> taken;
		long nowNanos;
		long queuedForNanos;
		int added = 0;
		boolean spun = false;
		this.lock.lock();
		try {
			long deadlineNanos = Long.MAX_VALUE;
			while (true) {
				nowNanos = now();
				added += moveDue(nowNanos);
				if (epoch != NOT_WAKEABLE && epoch != this.pollEpoch) {
					passOn();
					return null;
				}
				if (this.ready > 0) {
					taken = takeReady(nowNanos);
					// Read under the lock: an add may mark the entry dirty right after.
					queuedForNanos = nowNanos - taken.queuedNanos;
					passOn();
					break;
				}
				if (this.shuttingDown || (bounded && timeoutNanos <= 0)) {
					return null;
				}
				if (bounded) {
					// The clock is read for a deadline only once this consumer must wait.
					long readingNanos = this.clock.nanoTime();
					if (deadlineNanos == Long.MAX_VALUE) {
						deadlineNanos = Nanos.add(readingNanos, timeoutNanos);
					}
					else if (readingNanos >= deadlineNanos) {
						return null;
					}
				}
				if (!spun) {
					// A hand-off is often a few microseconds away: look again before
					// parking.
					spun = true;
					spinForReady();
					continue;
				}
				long untilNanos = this.waiting.isEmpty() ? deadlineNanos
						: Math.min(deadlineNanos, this.waiting.first().dueNanos);
				this.waitingConsumers++;
				try {
					if (untilNanos == Long.MAX_VALUE) {
						this.changed.await();
					}
					else {
						this.clock.awaitUntil(this.lock, this.changed, untilNanos);
					}
				}
				finally {
					this.waitingConsumers--;
				}
			}
		}
		finally {
			this.lock.unlock();
			reportAdds(added);
		}
		this.metrics.handedOut(queuedForNanos);
		return taken;
	}

	/**
	 * Spins without the lock until an entry is ready, a few microseconds at most; the
	 * caller looks again under the lock. The read is a hint: {@code ready} is written
	 * under the lock.
	 */
	private void spinForReady() {
		this.lock.unlock();
		try {
			for (int spins = HAND_OFF_SPINS; spins > 0 && (int) READY.getOpaque(this) == 0; spins--) {
				Thread.onSpinWait();
			}
		}
		finally {
			this.lock.lock();
		}
	}

	/** Another ready entry for another waiting consumer. Under the lock. */
	private void passOn() {
		if (this.ready > 0 && this.waitingConsumers > 0) {
			this.changed.signal();
		}
	}

	/**
	 * Makes every due waiting entry ready (or dirty), earliest first. Under the lock.
	 * @return how many count as adds, for the hook to hear once the lock is released
	 */
	private int moveDue(long nowNanos) {
		int added = 0;
		Wait<T> first;
		while (!this.waiting.isEmpty() && (first = this.waiting.first()).dueNanos <= nowNanos) {
			this.waiting.pollFirst();
			first.entry.wait = null;
			// Ready since it fell due: due times come out in order, so the ready-order
			// list stays sorted (every operation moves what is due before it lines up).
			if (add(first.entry, first.priority, first.dueNanos)) {
				added++;
			}
		}
		return added;
	}

	/** How long an entry has been ready, or {@link #UNTIMED}. */
	private long readyFor(Entry<?> entry, long nowNanos) {
		return this.timed ? nowNanos - entry.readyNanos : UNTIMED;
	}

	/** Tells the hook of adds made while moving due entries. Without the lock. */
	private void reportAdds(int added) {
		for (int i = 0; i < added; i++) {
			this.metrics.added();
		}
	}

	/** Takes the ready entry to hand out next. Under the lock. */
	private Entry<T> takeReady(long nowNanos) {
		Entry<T> entry = this.oldest;
		boolean starving = this.starvationNanos >= 0 && nowNanos - entry.readyNanos > this.starvationNanos;
		if (!starving) {
			entry = this.highest.head;
		}
		unlinkFromLevel(entry);
		unlinkFromOrder(entry);
		entry.ready = false;
		entry.processing = true;
		entry.startedNanos = nowNanos;
		this.ready--;
		this.processing++;
		return entry;
	}

	@Override
	public void done(T item) {
		Objects.requireNonNull(item, "item");
		long workNanos;
		int added = 0;
		this.lock.lock();
		try {
			Entry<T> entry = this.entries.get(item);
			if (entry == null || !entry.processing) {
				return;
			}
			// A ready time for a dirty item; a work time for the metrics.
			long nowNanos = entry.dirty ? this.clock.nanoTime() : now();
			added = moveDue(nowNanos);
			workNanos = nowNanos - entry.startedNanos;
			entry.processing = false;
			this.processing--;
			if (entry.dirty) {
				entry.dirty = false;
				this.dirty--;
				int priority = (entry.wait != null) ? Math.max(entry.dirtyPriority, entry.wait.priority)
						: entry.dirtyPriority;
				makeReady(entry, priority, nowNanos);
			}
			else if (entry.wait == null) {
				this.entries.remove(entry);
			}
			if (this.processing == 0) {
				this.drained.signalAll();
			}
		}
		finally {
			this.lock.unlock();
			reportAdds(added);
		}
		this.metrics.done(workNanos);
	}

	@Override
	public int size() {
		int added = 0;
		this.lock.lock();
		try {
			added = moveDue(now());
			return this.ready;
		}
		finally {
			this.lock.unlock();
			reportAdds(added);
		}
	}

	@Override
	public void shutDown() {
		this.lock.lock();
		try {
			this.shutDowns++;
			beginShutdown();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void shutDownWithDrain() {
		this.lock.lock();
		try {
			beginShutdown();
			long seen = this.shutDowns;
			while (this.processing > 0 && this.shutDowns == seen) {
				this.drained.await();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Stops taking adds and drops the waiting entries. Under the lock. */
	private void beginShutdown() {
		this.shuttingDown = true;
		for (Wait<T> wait : this.waiting) {
			Entry<T> entry = wait.entry;
			entry.wait = null;
			if (!entry.ready && !entry.processing) {
				this.entries.remove(entry);
			}
		}
		this.waiting.clear();
		this.changed.signalAll();
		this.drained.signalAll();
	}

	@Override
	public boolean isShuttingDown() {
		return this.shuttingDown;
	}

	@Override
	public String name() {
		return this.name;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The processing times walk the entries: O(items), for scrapes, not hot paths.
	 */
	@Override
	public WorkQueueStats stats() {
		int added = 0;
		this.lock.lock();
		try {
			long nowNanos = this.clock.nanoTime();
			added = moveDue(nowNanos);
			long[] unfinishedAndLongest = new long[2];
			this.entries.forEach((entry) -> {
				// Hand-out times are read only when timed (WorkQueueStats: zero
				// otherwise).
				if (entry.processing && this.timed) {
					unfinishedAndLongest[0] += nowNanos - entry.startedNanos;
					unfinishedAndLongest[1] = Math.max(unfinishedAndLongest[1], nowNanos - entry.startedNanos);
				}
			});
			long unfinished = unfinishedAndLongest[0];
			long longest = unfinishedAndLongest[1];
			long oldestReady = (this.oldest != null && this.timed) ? readyFor(this.oldest, nowNanos) : 0;
			return new WorkQueueStats(this.ready, this.processing, this.waiting.size(), this.retries, oldestReady,
					unfinished, longest, this.dirty);
		}
		finally {
			this.lock.unlock();
			reportAdds(added);
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Walks the ready entries once, oldest first: O(ready items), for scrapes.
	 */
	@Override
	public List<Level> readyLevels() {
		int added = 0;
		this.lock.lock();
		try {
			long nowNanos = this.clock.nanoTime();
			added = moveDue(nowNanos);
			Map<Integer, Long> oldestByPriority = new HashMap<>();
			long nonEmpty = this.levels.values().stream().filter((level) -> level.size > 0).count();
			for (Entry<T> entry = this.oldest; entry != null
					&& oldestByPriority.size() < nonEmpty; entry = entry.orderNext) {
				oldestByPriority.putIfAbsent(entry.priority, readyFor(entry, nowNanos));
			}
			List<Level> levels = new ArrayList<>();
			this.levels.descendingMap().forEach((priority, level) -> {
				if (level.size > 0) {
					levels.add(new Level(priority, level.size, oldestByPriority.get(priority)));
				}
			});
			return levels;
		}
		finally {
			this.lock.unlock();
			reportAdds(added);
		}
	}

	/** Returns how many items the queue keeps an entry for; for tests. */
	int trackedItems() {
		this.lock.lock();
		try {
			return this.entries.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public String toString() {
		return "PriorityQueue[" + this.name + ", limited by " + this.limiter
				+ ((this.starvationNanos >= 0) ? ", starvation timeout " + Duration.ofNanos(this.starvationNanos) : "")
				+ "]";
	}

	/**
	 * One item's place in the queue. Guarded by the queue's lock.
	 *
	 * @param <T> the item type
	 */
	private static final class Entry<T> extends KeyedEntry<T> {

		boolean ready;

		boolean processing;

		boolean dirty;

		/**
		 * While ready, its level; while processing, the priority it was handed out with.
		 */
		int priority;

		int dirtyPriority;

		long readyNanos;

		long queuedNanos;

		long startedNanos;

		/** Its pending delay, or {@code null}. */
		Wait<T> wait;

		/** While ready, its level. */
		Bucket<T> level;

		Entry<T> levelPrev;

		Entry<T> levelNext;

		Entry<T> orderPrev;

		Entry<T> orderNext;

		Entry(T item) {
			super(item);
		}

	}

	/**
	 * The pending delay of an entry: the earliest due time and the highest priority of
	 * its delayed adds. A separate object, so that only delayed items pay for it.
	 *
	 * @param <T> the item type
	 */
	private static final class Wait<T> {

		final Entry<T> entry;

		int priority;

		long dueNanos;

		/** Orders equal due times, as they were set. */
		long order;

		Wait(Entry<T> entry, int priority) {
			this.entry = entry;
			this.priority = priority;
		}

	}

	/**
	 * The ready entries of one priority, a FIFO. Guarded by the queue's lock.
	 *
	 * @param <T> the item type
	 */
	private static final class Bucket<T> {

		final int priority;

		Entry<T> head;

		Entry<T> tail;

		int size;

		Bucket(int priority) {
			this.priority = priority;
		}

	}

}
