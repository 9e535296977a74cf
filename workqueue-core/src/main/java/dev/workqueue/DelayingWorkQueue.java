package dev.workqueue;

import java.time.Duration;
import java.util.Collection;
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
 * <b>Waiting items.</b> A {@link WaitingHeap} (heap ordered by ready time plus a dedup
 * index) guarded by {@link #lock}. {@code addAfter} with a positive delay inserts its
 * entry itself, in O(log n) under the lock (an item already waiting keeps the earlier
 * ready time), as the JDK's {@code DelayQueue.offer} does: it never waits for another
 * thread, and never drops an item. So an item is waiting, counted and deduplicated the
 * moment {@code addAfter} returns, and a burst of {@code addAfter} calls needs no other
 * thread to keep up with it.
 * <p>
 * <b>Owner thread.</b> One daemon thread, {@code workqueue-<name>-delay}, started by the
 * first {@code addAfter} with a positive delay, moves due items into the wrapped queue.
 * It loops, holding the lock: read the clock, move up to {@value #BATCH} items due at
 * that reading from the heap into the wrapped queue (then let producers in before the
 * next batch), and when nothing is due, wait on the clock until the head's ready time or
 * the heartbeat, whichever is first. There is no periodic tick: an idle queue wakes once
 * per heartbeat. A producer whose entry becomes the new head, due before the owner's
 * planned wake-up, signals it. {@code shutDown} stops it and drops what waits.
 * <p>
 * <b>Faults.</b> A due item that the wrapped queue refuses by throwing (its
 * {@code equals} or {@code hashCode} throws, or a metrics hook does) is logged with the
 * queue's name and the item's class, and dropped: it costs that item only. If the owner
 * ends anyway (a throwing {@link Clock}, an {@link Error}), it logs why and clears
 * {@link #owner}; the next {@code addAfter} or {@link #stats()} starts a new one, and the
 * heap is kept, so nothing waiting is lost.
 * <p>
 * <b>Happens-before.</b> Actions before {@code addAfter} happen before the owner's
 * removal of the item from the heap (both under {@link #lock}), hence before its
 * {@code add} to the wrapped queue and its hand-out. The owner adds to the wrapped queue
 * holding {@link #lock} (the wrapped queue never calls back, so the lock order is fixed),
 * and {@link #stats()} reads both stages under it: an item is counted either waiting or
 * in the wrapped queue, never both and never neither, which is what a draining shutdown
 * counts on.
 * <p>
 * <b>Cost.</b> {@code addAfter} reads the clock, allocates one 32-byte entry and takes
 * the lock once. A waiting item retains 44 to 54 bytes with compressed oops, index
 * included (see {@link WaitingHeap}).
 *
 * @param <T> the item type
 */
final class DelayingWorkQueue<T> implements DelayingQueue<T>, PollForwarding<T> {

	private static final System.Logger logger = System.getLogger(DelayingWorkQueue.class.getName());

	/** Most due items the owner takes per lock hold. */
	static final int BATCH = 64;

	/** {@link #nextWakeNanos} while the owner is awake: no producer needs to wake it. */
	private static final long RUNNING = Long.MIN_VALUE;

	private final WorkQueue<T> queue;

	private final Clock clock;

	private final WorkQueueMetrics metrics;

	private final long heartbeatNanos;

	private final String threadName;

	/**
	 * Guards the heap, {@link #nextWakeNanos}, {@link #delayedAdds} and the owner's
	 * waits; {@link #stopped} and {@link #owner} are written under it.
	 */
	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	/** Guarded by lock. */
	private final WaitingHeap<T> waiting = new WaitingHeap<>();

	/** When the waiting owner wakes by itself; {@link #RUNNING} while it is awake. */
	private long nextWakeNanos = RUNNING;

	/** Written under the lock; read without it as a fast path. */
	private volatile boolean stopped;

	/** Started lazily under the lock; volatile for {@link #ownerThread()}. */
	private volatile Thread owner;

	/** Due items the wrapped queue refused by throwing; guarded by lock. */
	private long droppedItems;

	/** addAfter calls with a positive delay; guarded by lock. */
	private long delayedAdds;

	/** addAfter calls with a delay of zero or less. */
	private final LongAdder immediateAdds = new LongAdder();

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
		long delayNanos = Nanos.of(delay);
		if (delayNanos <= 0) {
			// Counted only once the add went through: an item whose hashCode throws is
			// the caller's error, not a retry.
			this.queue.add(item);
			this.immediateAdds.increment();
			this.metrics.retried();
			return;
		}
		WaitingEntry<T> entry = new WaitingEntry<>(item, Nanos.add(this.clock.nanoTime(), delayNanos));
		this.lock.lock();
		try {
			if (this.stopped) {
				return;
			}
			this.waiting.offer(entry);
			this.delayedAdds++;
			if (this.owner == null) {
				startOwner();
			}
			else if (this.nextWakeNanos != RUNNING && this.waiting.headReadyAtNanos() < this.nextWakeNanos) {
				this.wakeUp.signal();
			}
		}
		finally {
			this.lock.unlock();
		}
		this.metrics.retried();
	}

	/** Called with the lock held. */
	private void startOwner() {
		Thread thread = new Thread(this::runOwner, this.threadName);
		thread.setDaemon(true);
		thread.start();
		this.owner = thread;
	}

	/**
	 * The owner's loop. A fault of one item (its {@code equals} or {@code hashCode}
	 * throwing in the wrapped queue's {@code add}, or a metrics hook) costs that item
	 * only: it is logged and the loop goes on. Anything else that escapes (a throwing
	 * {@link Clock}, an {@link Error}) ends the thread with a log line; it clears
	 * {@link #owner} under the lock, so the next {@code addAfter} or {@link #stats()}
	 * starts a new owner and nothing waiting is lost.
	 */
	private void runOwner() {
		this.lock.lock();
		try {
			while (!this.stopped) {
				long nowNanos = this.clock.nanoTime();
				int moved = 0;
				for (T item; moved < BATCH && (item = this.waiting.pollDue(nowNanos)) != null; moved++) {
					// Under the lock: stats() never misses an item in between.
					moveToQueue(item);
				}
				if (moved == BATCH) {
					// More may be due: let waiting producers in between batches.
					this.lock.unlock();
					this.lock.lock();
				}
				else if (moved == 0) {
					await(Math.min(this.waiting.headReadyAtNanos(), Nanos.add(nowNanos, this.heartbeatNanos)));
				}
			}
			this.waiting.clear();
		}
		catch (Throwable ex) {
			this.owner = null;
			Faults.log(logger, "The delay thread of queue '" + name() + "' stopped; the next delayed add restarts it",
					null, ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Hands a due item to the wrapped queue; a faulty item is logged and dropped. */
	private void moveToQueue(T item) {
		try {
			this.queue.add(item);
		}
		catch (Throwable ex) {
			this.droppedItems++;
			Faults.log(logger, "Queue '" + name() + "' dropped a due item that could not be queued", item, ex);
		}
	}

	/** Waits until {@code wakeAtNanos} or a signal. Called with the lock held. */
	private void await(long wakeAtNanos) {
		this.nextWakeNanos = wakeAtNanos;
		try {
			this.clock.awaitUntil(this.lock, this.wakeUp, wakeAtNanos);
		}
		catch (InterruptedException ex) {
			// Only shutDown stops the owner; an interrupt from elsewhere just wakes it.
		}
		finally {
			this.nextWakeNanos = RUNNING;
		}
	}

	@Override
	public void add(T item) {
		this.queue.add(item);
	}

	@Override
	public void addAll(Collection<? extends T> items) {
		this.queue.addAll(items);
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
	public WorkQueue<T> pollTarget() {
		return this.queue;
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
		this.lock.lock();
		try {
			this.stopped = true;
			// The owner drops nothing it has taken already: those items were due.
			this.waiting.clear();
			this.wakeUp.signal();
		}
		finally {
			this.lock.unlock();
		}
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
	 * {@code waiting} counts the items in the heap, exactly; it reads zero once shut
	 * down. {@code retries} counts every {@code addAfter} not ignored.
	 */
	@Override
	public WorkQueueStats stats() {
		int waiting;
		long delayed;
		WorkQueueStats stats;
		this.lock.lock();
		try {
			if (this.owner == null && !this.stopped && this.waiting.size() > 0) {
				// The owner ended on a fault (logged): items wait, so restart it.
				startOwner();
			}
			waiting = this.waiting.size();
			delayed = this.delayedAdds;
			// Under the lock, which the owner holds while it moves an item from the heap
			// into the wrapped queue: a moving item is counted in one place, never none
			// or both. The lock order is the owner's.
			stats = this.queue.stats();
		}
		finally {
			this.lock.unlock();
		}
		long retries = delayed + this.immediateAdds.sum();
		return new WorkQueueStats(stats.depth(), stats.processing(), waiting, retries, stats.headQueuedNanos(),
				stats.unfinishedWorkNanos(), stats.longestRunningProcessorNanos(), stats.addedWhileProcessing());
	}

	/** Due items dropped because the wrapped queue threw on them, for tests. */
	long droppedItems() {
		this.lock.lock();
		try {
			return this.droppedItems;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The owner thread: {@code null} until the first delayed add, and again after it
	 * ended on a fault.
	 */
	Thread ownerThread() {
		return this.owner;
	}

	/**
	 * Whether the owner has finished a pass (released what was due at its last clock
	 * reading) and waits. For single-threaded tests that know no wake-up is pending.
	 */
	boolean isIdle() {
		this.lock.lock();
		try {
			return this.nextWakeNanos != RUNNING;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The wrapped queue, for tests. */
	WorkQueue<T> queue() {
		return this.queue;
	}

	long heartbeatNanos() {
		return this.heartbeatNanos;
	}

	/** Number of entries in the heap plus its dedup index, for leak tests. */
	int heldEntries() {
		this.lock.lock();
		try {
			return this.waiting.size() + this.waiting.indexSize();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public String toString() {
		return "DelayingQueue[" + name() + "]";
	}

}
