package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The {@link DelayingQueue}: a {@link WorkQueue} plus client-go's waiting loop. Every
 * method but {@code addAfter} delegates to the wrapped queue.
 * <p>
 * <b>Owner thread.</b> One daemon thread, {@code workqueue-<name>-delay}, started by the
 * first {@code addAfter} with a positive delay, owns the {@link WaitingHeap} (heap and
 * dedup index): no other thread touches it. It loops: read the clock, take every
 * handed-off entry into the heap (an item already waiting keeps the earlier ready time),
 * move every item due at that reading into the wrapped queue in ready-time order, then
 * park on the clock until the head's ready time or the heartbeat, whichever is first.
 * There is no periodic tick: an idle queue wakes once per heartbeat. {@code shutDown}
 * stops it and drops what waits.
 * <p>
 * <b>Hand-off.</b> Producers push entries onto a lock-free stack ({@link #handOffTop}, a
 * Treiber stack linked through {@code WaitingEntry.next}, CAS on push, the owner takes
 * all with one {@code getAndSet}); {@code addAfter} never blocks and never drops. The
 * owner publishes in {@link #nextWakeNanos} when it will wake by itself, or
 * {@link #RUNNING} while awake. A producer wakes it, under {@link #lock}, only when its
 * push found the stack empty and the owner parked: while the stack is not empty, an
 * earlier producer has woken the owner or found it awake, and an awake owner empties the
 * stack before it parks. So the owner wakes at most once per batch of hand-offs, takes
 * them promptly (dedup and the {@code waiting} count stay exact within microseconds), and
 * never wakes for nothing.
 * <p>
 * <b>No missed wake-up.</b> Before parking the owner, holding {@link #lock}, writes
 * {@code nextWakeNanos} and then reads the stack top; a producer writes the stack top
 * (CAS) and then reads {@code nextWakeNanos}. All four are volatile accesses, so in their
 * total order either the owner's read follows the push (it sees the entry and does not
 * park) or the producer's read follows the owner's write (it sees that the owner parks,
 * and signals). The signal is sent holding {@link #lock}, which the owner releases only
 * inside the wait, so the signal cannot fall between its check and its wait. The same
 * pairing (push, then read {@link #stopped}; set {@code stopped}, then the owner's final
 * take) ensures an entry pushed during shutdown is dropped, not leaked.
 * <p>
 * <b>Happens-before.</b> Actions before {@code addAfter} happen before the owner's take
 * of the stack (CAS then {@code getAndSet}), hence before the item's {@code add} to the
 * wrapped queue and its hand-out. {@link #settledEntries} is written only by the owner
 * after the items it counts were added, so a reader of {@code stats()} that sees a lower
 * {@code waiting} count also sees those items in the queue.
 * <p>
 * <b>Cost.</b> {@code addAfter} reads the clock, allocates one 40-byte entry and CASes it
 * onto the stack; it takes {@link #lock} only to wake a parked owner. A waiting item
 * retains 52 to 62 bytes with compressed oops, index included (see {@link WaitingHeap}; a
 * rough heap measurement with a million waiting items gave about 56). An addAfter that
 * completes before the clock reaches the ready time of the item's present wait is always
 * folded into it, since the owner reads the clock before it takes the hand-offs.
 *
 * @param <T> the item type
 */
final class DelayingWorkQueue<T> implements DelayingQueue<T> {

	/** {@link #nextWakeNanos} while the owner is awake: no producer needs to wake it. */
	private static final long RUNNING = Long.MIN_VALUE;

	private static final VarHandle HAND_OFF_TOP;

	static {
		try {
			HAND_OFF_TOP = MethodHandles.lookup()
				.findVarHandle(DelayingWorkQueue.class, "handOffTop", WaitingEntry.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final WorkQueue<T> queue;

	private final Clock clock;

	private final WorkQueueMetrics metrics;

	private final long heartbeatNanos;

	private final String threadName;

	/** Parks and wakes the owner; guards nothing else. */
	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	/** Top of the hand-off stack; pushed by producers, emptied by the owner. */
	private volatile WaitingEntry<T> handOffTop;

	/** When the parked owner wakes by itself; {@link #RUNNING} while it is awake. */
	private volatile long nextWakeNanos = RUNNING;

	private volatile boolean stopped;

	/** Started lazily under {@link #lock}. */
	private volatile Thread owner;

	/** addAfter calls with a positive delay, counted before the push. */
	private final LongAdder delayedAdds = new LongAdder();

	/** addAfter calls with a delay of zero or less. */
	private final LongAdder immediateAdds = new LongAdder();

	/**
	 * Handed-off entries that no longer wait: folded into a present entry, or added to
	 * the queue. Written only by the owner.
	 */
	private volatile long settledEntries;

	/** Owner thread only. */
	private final WaitingHeap<T> waiting = new WaitingHeap<>();

	DelayingWorkQueue(WorkQueue<T> queue, Clock clock, WorkQueueMetrics metrics, long heartbeatNanos) {
		this.queue = queue;
		this.clock = clock;
		this.metrics = metrics;
		this.heartbeatNanos = heartbeatNanos;
		this.threadName = queue.name().isEmpty() ? "workqueue-delay" : "workqueue-" + queue.name() + "-delay";
	}

	@Override
	public void addAfter(T item, Duration delay) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		if (this.stopped) {
			return;
		}
		this.metrics.retried();
		long delayNanos = Nanos.of(delay);
		if (delayNanos <= 0) {
			this.immediateAdds.increment();
			this.queue.add(item);
			return;
		}
		this.delayedAdds.increment();
		WaitingEntry<T> entry = new WaitingEntry<>(item, Nanos.add(this.clock.nanoTime(), delayNanos));
		boolean first = push(entry);
		if (this.stopped) {
			dropHandOffs();
			return;
		}
		if (this.owner == null) {
			startOwner();
		}
		if (first && this.nextWakeNanos != RUNNING) {
			wakeOwner();
		}
	}

	/** Pushes onto the hand-off stack; returns whether the stack was empty. */
	private boolean push(WaitingEntry<T> entry) {
		WaitingEntry<T> top;
		do {
			top = this.handOffTop;
			entry.next = top;
		}
		while (!HAND_OFF_TOP.compareAndSet(this, top, entry));
		return top == null;
	}

	@SuppressWarnings("unchecked")
	private WaitingEntry<T> takeHandOffs() {
		return (WaitingEntry<T>) HAND_OFF_TOP.getAndSet(this, null);
	}

	private void dropHandOffs() {
		takeHandOffs();
	}

	private void startOwner() {
		this.lock.lock();
		try {
			if (this.owner == null && !this.stopped) {
				Thread thread = new Thread(this::runOwner, this.threadName);
				thread.setDaemon(true);
				thread.start();
				this.owner = thread;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void wakeOwner() {
		this.lock.lock();
		try {
			this.wakeUp.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void runOwner() {
		long settled = 0;
		try {
			while (!this.stopped) {
				// The clock is read before the hand-offs are taken: an entry handed off
				// before the clock reached an item's ready time is folded into it before
				// the item is released, never left to wait again after it.
				long nowNanos = this.clock.nanoTime();
				for (WaitingEntry<T> entry = takeHandOffs(); entry != null;) {
					WaitingEntry<T> next = entry.next;
					entry.next = null;
					if (!this.waiting.offer(entry)) {
						settled++;
					}
					entry = next;
				}
				for (T item = this.waiting.pollDue(nowNanos); item != null; item = this.waiting.pollDue(nowNanos)) {
					this.queue.add(item);
					settled++;
				}
				this.settledEntries = settled;
				park(Math.min(this.waiting.headReadyAtNanos(), Nanos.add(nowNanos, this.heartbeatNanos)));
			}
		}
		finally {
			this.waiting.clear();
			dropHandOffs();
		}
	}

	private void park(long wakeAtNanos) {
		this.lock.lock();
		try {
			this.nextWakeNanos = wakeAtNanos;
			if (this.handOffTop == null && !this.stopped) {
				this.clock.awaitUntil(this.lock, this.wakeUp, wakeAtNanos);
			}
		}
		catch (InterruptedException ex) {
			// Only shutDown stops the owner; an interrupt from elsewhere just wakes it.
		}
		finally {
			this.nextWakeNanos = RUNNING;
			this.lock.unlock();
		}
	}

	@Override
	public void add(T item) {
		this.queue.add(item);
	}

	@Override
	public T get() throws InterruptedException {
		return this.queue.get();
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		return this.queue.poll(timeout);
	}

	@Override
	public void done(T item) {
		this.queue.done(item);
	}

	@Override
	public int size() {
		return this.queue.size();
	}

	@Override
	public void shutDown() {
		stopWaiting();
		this.queue.shutDown();
	}

	@Override
	public void shutDownWithDrain() {
		stopWaiting();
		this.queue.shutDownWithDrain();
	}

	private void stopWaiting() {
		this.stopped = true;
		wakeOwner();
		// For an owner never started; otherwise the owner drops them too on its way out.
		dropHandOffs();
	}

	@Override
	public boolean isShuttingDown() {
		return this.queue.isShuttingDown();
	}

	@Override
	public String name() {
		return this.queue.name();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@code waiting} counts the items in the heap plus the entries handed off but not
	 * yet taken by the owner thread, which may still fold into a present entry; it reads
	 * zero once shut down. {@code retries} counts every {@code addAfter} not ignored.
	 */
	@Override
	public WorkQueueStats stats() {
		WorkQueueStats stats = this.queue.stats();
		// Settled first: every settled entry was counted in delayedAdds before its push.
		long settled = this.settledEntries;
		long delayed = this.delayedAdds.sum();
		long retries = delayed + this.immediateAdds.sum();
		int waiting = this.stopped ? 0 : (int) Math.min(Integer.MAX_VALUE, delayed - settled);
		return new WorkQueueStats(stats.depth(), stats.processing(), waiting, retries, stats.oldestQueuedNanos(),
				stats.unfinishedWorkNanos(), stats.longestRunningProcessorNanos());
	}

	/** The owner thread, {@code null} until the first delayed add. */
	Thread ownerThread() {
		return this.owner;
	}

	/**
	 * Whether the owner has finished a pass (taken every hand-off, released what was due
	 * at its last clock reading) and sleeps or is about to. For single-threaded tests
	 * that know no wake-up is pending.
	 */
	boolean isIdle() {
		return this.handOffTop == null && this.nextWakeNanos != RUNNING;
	}

	/** Number of entries handed off and not yet taken by the owner, for leak tests. */
	int pendingHandOffs() {
		int count = 0;
		for (WaitingEntry<T> entry = this.handOffTop; entry != null; entry = entry.next) {
			count++;
		}
		return count;
	}

	/** The wrapped queue, for tests. */
	WorkQueue<T> queue() {
		return this.queue;
	}

	long heartbeatNanos() {
		return this.heartbeatNanos;
	}

	/**
	 * Number of entries in the owner's heap plus its dedup index, for leak tests. Exact
	 * once the owner has parked after its last pass (its last write of
	 * {@link #settledEntries}, read first here, publishes the heap).
	 */
	int heldEntries() {
		long settled = this.settledEntries;
		return (settled >= 0) ? this.waiting.size() + this.waiting.indexSize() : 0;
	}

	@Override
	public String toString() {
		return "DelayingQueue[" + name() + "]";
	}

}
