package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.internal.ItemTable;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The plain {@link WorkQueue}: client-go's {@code queue.go} with its {@code dirty} and
 * {@code processing} sets folded into one map from item to {@link Node}.
 * <p>
 * <b>Structures.</b> {@link #nodes}, an {@link ItemTable}, maps every item that is queued
 * or being processed to its node; the node's {@code state} says which
 * ({@link Node#QUEUED}, {@link Node#PROCESSING}, or {@link Node#DIRTY}: being processed
 * and added again). Ready nodes form a FIFO linked through {@code Node.next}; nodes
 * handed out are kept by a {@link ProcessingSet} (client-go's {@code processing}), which
 * also dates them when metrics are on. An item is in the map exactly while it is queued
 * or processing, so the map empties when the queue does.
 * <p>
 * <b>Concurrency.</b> One {@link ReentrantLock} guards every mutation: the map, the node
 * fields, the FIFO, the processing set, the counters and the shutdown flags. Consumers
 * wait on {@link #readyOrShutDown} and are signalled only when someone waits;
 * {@code shutDownWithDrain} waits on {@link #drained}. A consumer that finds the queue
 * empty first spins for a few microseconds without the lock (see {@link #spinForHead()}).
 * The one path that skips the lock is a duplicate {@code add} (see
 * {@link Node#absorbDuplicate()}): it looks the node up without the lock (which the table
 * allows) and succeeds only with a CAS on its state, which the hand-out
 * ({@code QUEUED → PROCESSING}) and {@code done} ({@code DIRTY → QUEUED}) transitions
 * read with an atomic {@code getAndSet}. Hence every {@code add(x)} happens before the
 * next hand-out of {@code x} (through the lock or through that CAS), and actions before
 * {@code add(x)} are visible to the worker that next gets {@code x}.
 * <p>
 * <b>Cost.</b> A new item costs one 48-byte node and one table slot; {@code add},
 * {@code get} and {@code done} take the lock once each and probe the table once each
 * ({@code get} not at all). The only other atomic instruction on that path is the
 * hand-out's {@code getAndSet}. With {@link WorkQueueMetrics#NOOP} the clock is never
 * read on {@code add}, {@code get} or {@code done}; metrics hooks run after the lock is
 * released.
 *
 * @param <T> the item type
 */
final class BasicQueue<T> implements WorkQueue<T>, WakeablePolls<T> {

	/** The epoch of a plain get or poll, which {@link #wakePolls()} does not end. */
	private static final long NOT_WAKEABLE = Long.MIN_VALUE;

	/** Checks for a ready node before a consumer parks; a few microseconds at most. */
	private static final int HAND_OFF_SPINS = 256;

	private static final VarHandle HEAD;

	static {
		try {
			HEAD = MethodHandles.lookup().findVarHandle(BasicQueue.class, "head", Node.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final String name;

	private final Clock clock;

	private final WorkQueueMetrics metrics;

	/** Whether metrics are recorded: only then is the clock read on the hot path. */
	private final boolean timed;

	/** Items queued or processing; written under the lock, read without it by add. */
	private final ItemTable<T, Node<T>> nodes = new ItemTable<>();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition readyOrShutDown = this.lock.newCondition();

	private final Condition drained = this.lock.newCondition();

	/** Oldest ready node (next to hand out); guarded by lock. */
	private Node<T> head;

	/** Newest ready node; guarded by lock. */
	private Node<T> tail;

	/** Nodes handed out and not yet done; guarded by lock. */
	private final ProcessingSet<T> processing;

	/** Guarded by lock. */
	private int readyCount;

	/** Nodes in state DIRTY (processing and added again); guarded by lock. */
	private int dirtyCount;

	/** Threads waiting in get/poll; guarded by lock. */
	private int waitingConsumers;

	/** Changes with each {@link #wakePolls()}; written under the lock. */
	private volatile long pollEpoch;

	/** Threads waiting in shutDownWithDrain; guarded by lock. */
	private int drainWaiters;

	/** Number of shutDown calls: a drain returns when it changes; guarded by lock. */
	private long drainReleases;

	/** Written under the lock; read without it by {@link #isShuttingDown()}. */
	private volatile boolean shuttingDown;

	BasicQueue(String name, Clock clock, WorkQueueMetrics metrics) {
		this.name = name;
		this.clock = clock;
		this.metrics = metrics;
		this.timed = metrics != WorkQueueMetrics.NOOP;
		this.processing = new ProcessingSet<>(this.timed);
	}

	@Override
	public void add(T item) {
		Objects.requireNonNull(item, "item");
		int hash = item.hashCode();
		Node<T> existing = this.nodes.get(item, hash);
		if (existing != null && existing.absorbDuplicate()) {
			return;
		}
		Node<T> fresh = new Node<>(item, hash);
		long nowNanos = this.timed ? this.clock.nanoTime() : 0;
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return;
			}
			fresh.queuedAtNanos = nowNanos;
			Node<T> node = this.nodes.putIfAbsent(fresh);
			if (node == null) {
				// Lock-free readers may see the node before it is linked: harmless, as
				// no consumer can take it before the lock is released.
				enqueue(fresh);
			}
			else if (node.state == Node.PROCESSING) {
				node.markDirty();
				this.dirtyCount++;
				node.queuedAtNanos = nowNanos;
			}
			else {
				return;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (this.timed) {
			this.metrics.added();
		}
	}

	@Override
	public T get() throws InterruptedException {
		return take(false, 0, NOT_WAKEABLE);
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return take(true, Nanos.of(timeout), NOT_WAKEABLE);
	}

	@Override
	public long pollEpoch() {
		return this.pollEpoch;
	}

	@Override
	public T pollUnlessWoken(Duration timeout, long epoch) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return take(true, Nanos.of(timeout), epoch);
	}

	@Override
	public void wakePolls() {
		this.lock.lock();
		try {
			this.pollEpoch++;
			if (this.waitingConsumers > 0) {
				this.readyOrShutDown.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes the next item; a poll with an epoch other than {@link #NOT_WAKEABLE} returns
	 * {@code null} once the epoch has changed.
	 */
	private T take(boolean bounded, long timeoutNanos, long epoch) throws InterruptedException {
		T item;
		long queuedNanos;
		this.lock.lock();
		try {
			if (epoch != NOT_WAKEABLE && epoch != this.pollEpoch) {
				return null;
			}
			Node<T> node = this.head;
			if (node == null) {
				node = awaitHead(bounded, timeoutNanos, epoch);
				if (node == null) {
					return null;
				}
			}
			item = node.item;
			queuedNanos = handOut(node);
		}
		finally {
			this.lock.unlock();
		}
		if (this.timed) {
			this.metrics.handedOut(queuedNanos);
		}
		return item;
	}

	/** Waits for a ready node; null on shutdown or timeout. Called with the lock held. */
	private Node<T> awaitHead(boolean bounded, long timeoutNanos, long epoch) throws InterruptedException {
		if (bounded && timeoutNanos <= 0) {
			return null;
		}
		long deadlineNanos = bounded ? Nanos.add(this.clock.nanoTime(), timeoutNanos) : 0;
		if (!this.shuttingDown) {
			spinForHead();
		}
		Node<T> node;
		// The epoch before the head: a poll woken for a pause takes nothing added since.
		while (epoch == NOT_WAKEABLE || epoch == this.pollEpoch) {
			if ((node = this.head) != null) {
				return node;
			}
			if (this.shuttingDown || (bounded && this.clock.nanoTime() >= deadlineNanos)) {
				return null;
			}
			this.waitingConsumers++;
			try {
				if (bounded) {
					this.clock.awaitUntil(this.lock, this.readyOrShutDown, deadlineNanos);
				}
				else {
					this.readyOrShutDown.await();
				}
			}
			finally {
				this.waitingConsumers--;
			}
		}
		if (this.head != null && this.waitingConsumers > 0) {
			// Woken for a pause: the signal this poll may have taken goes to a consumer
			// that takes items.
			this.readyOrShutDown.signal();
		}
		return null;
	}

	/**
	 * Lets go of the lock and spins briefly until a node looks ready, then takes the lock
	 * again. A consumer that drained the queue usually finds the producer's next item
	 * within a few microseconds; parking and being unparked costs more than that, and the
	 * unpark would fall on the producer. The unlocked read of {@code head} is only a
	 * hint: the caller checks again under the lock.
	 */
	private void spinForHead() {
		this.lock.unlock();
		try {
			for (int spins = HAND_OFF_SPINS; spins > 0 && HEAD.getOpaque(this) == null; spins--) {
				Thread.onSpinWait();
			}
		}
		finally {
			this.lock.lock();
		}
	}

	/**
	 * Moves the head to processing; returns its queued time. Called with the lock held.
	 */
	private long handOut(Node<T> node) {
		this.head = node.next;
		if (this.head == null) {
			this.tail = null;
		}
		node.next = null;
		this.readyCount--;
		node.markProcessing();
		if (!this.timed) {
			this.processing.add(node, 0);
			return 0;
		}
		long nowNanos = this.clock.nanoTime();
		this.processing.add(node, nowNanos);
		return nowNanos - node.queuedAtNanos;
	}

	@Override
	public void done(T item) {
		Objects.requireNonNull(item, "item");
		long workNanos = 0;
		this.lock.lock();
		try {
			Node<T> node = this.nodes.get(item);
			if (node == null || node.state == Node.QUEUED) {
				return;
			}
			workNanos = this.processing.remove(node, this.timed ? this.clock.nanoTime() : 0);
			if (node.state == Node.DIRTY) {
				this.dirtyCount--;
				node.markRequeued();
				enqueue(node);
			}
			else {
				// The node stays PROCESSING forever, so a reader still holding it takes
				// the lock.
				this.nodes.remove(node);
			}
			if (this.processing.size() == 0 && this.drainWaiters > 0) {
				this.drained.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
		if (this.timed) {
			this.metrics.done(workNanos);
		}
	}

	/** Appends a ready node and wakes one consumer. Called with the lock held. */
	private void enqueue(Node<T> node) {
		if (this.tail == null) {
			this.head = node;
		}
		else {
			this.tail.next = node;
		}
		this.tail = node;
		this.readyCount++;
		if (this.waitingConsumers > 0) {
			this.readyOrShutDown.signal();
		}
	}

	@Override
	public int size() {
		this.lock.lock();
		try {
			return this.readyCount;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void shutDown() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			this.drainReleases++;
			this.readyOrShutDown.signalAll();
			this.drained.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void shutDownWithDrain() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			this.readyOrShutDown.signalAll();
			long releases = this.drainReleases;
			while (this.processing.size() > 0 && this.drainReleases == releases) {
				this.drainWaiters++;
				try {
					this.drained.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				finally {
					this.drainWaiters--;
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean isShuttingDown() {
		return this.shuttingDown;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public WorkQueueStats stats() {
		this.lock.lock();
		try {
			int processingCount = this.processing.size();
			if (!this.timed) {
				return new WorkQueueStats(this.readyCount, processingCount, 0, 0, 0, 0, 0, this.dirtyCount);
			}
			long nowNanos = this.clock.nanoTime();
			long headQueuedNanos = (this.head != null) ? nowNanos - this.head.queuedAtNanos : 0;
			return new WorkQueueStats(this.readyCount, processingCount, 0, 0, headQueuedNanos,
					this.processing.unfinishedNanos(nowNanos), this.processing.longestNanos(nowNanos), this.dirtyCount);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Number of items in the internal map (queued or processing), for leak tests. */
	int trackedItems() {
		this.lock.lock();
		try {
			return this.nodes.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public String toString() {
		return "WorkQueue[" + this.name + "]";
	}

}
