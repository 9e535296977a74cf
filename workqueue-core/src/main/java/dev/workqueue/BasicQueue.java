package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.internal.ItemTable;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The in-memory {@link WorkQueue}, and with {@link DelayingBasicQueue} the
 * {@link DelayingQueue}: client-go's {@code queue.go} and {@code delaying_queue.go} with
 * their {@code dirty}, {@code processing} and waiting sets folded into one map from item
 * to {@link Node}.
 * <p>
 * <b>Structures.</b> {@link #nodes}, an {@link ItemTable}, maps every item that is
 * queued, being processed or waiting for a delay to its node; the node's {@code state}
 * says which ({@link Node#QUEUED}, {@link Node#PROCESSING}, {@link Node#DIRTY}: being
 * processed and added again, or {@link Node#WAITING}: only waiting). Ready nodes form a
 * FIFO linked through {@code Node.next}; nodes handed out are kept by a
 * {@link ProcessingSet} (client-go's {@code processing}), which also dates them when
 * metrics are on; nodes with a delay pending sit in a {@link NodeHeap} by ready time,
 * whatever their state. One node serves an item in every stage, so a delayed item costs
 * one allocation, and nothing more when its delay ends. An item is in the map exactly
 * while it is queued, processing or waiting, so the map empties when the queue does; it
 * does not shrink while any node waits, since the waiting items are due back.
 * <p>
 * <b>Delays without a thread.</b> Due nodes move into the FIFO when the queue is used:
 * {@code add}, {@code addAfter}, {@code get} and {@code poll} first move up to
 * {@value #DUE_BATCH} nodes due at the clock's reading (so an item added after another
 * fell due lines up behind it), {@code size} and {@code stats} all of them. A consumer
 * that finds nothing ready waits as in the JDK's {@code DelayQueue}: one of them, the
 * {@link #leader}, sleeps on the clock until the earliest ready time (or the heartbeat),
 * the others until signalled. A producer signals only when its node becomes the new
 * earliest, and a leader that leaves hands the role on. So a delayed item needs no hop
 * through another thread, and an idle queue runs no thread at all.
 * <p>
 * <b>Concurrency.</b> One {@link ReentrantLock} guards every mutation: the map, the node
 * fields, the FIFO, the heap, the processing set, the counters and the shutdown flags.
 * Consumers wait on {@link #readyOrShutDown} and are signalled only when someone waits;
 * {@code shutDownWithDrain} waits on {@link #drained}. A consumer that finds the queue
 * empty first spins for a few microseconds without the lock (see {@link #spinForHead()}).
 * The one path that skips the lock is a duplicate {@code add} (see
 * {@link Node#absorbDuplicate()}): it looks the node up without the lock (which the table
 * allows) and succeeds only with a CAS on its state, which the hand-out
 * ({@code QUEUED → PROCESSING}) and {@code done} ({@code DIRTY → QUEUED}) transitions
 * read with an atomic {@code getAndSet}. Hence every {@code add(x)} happens before the
 * next hand-out of {@code x} (through the lock or through that CAS), and actions before
 * {@code add(x)} or {@code addAfter(x, d)} are visible to the worker that next gets
 * {@code x}.
 * <p>
 * <b>Cost.</b> A new item costs one node (40 bytes, or 64 for a {@link TimedNode} when
 * metrics are on) and one table slot; a delayed one a heap slot too. {@code add},
 * {@code get} and {@code done} take the lock once each and probe the table once each
 * ({@code get} not at all). The only other atomic instruction on that path is the
 * hand-out's {@code getAndSet}. With {@link WorkQueueMetrics#NOOP} the clock is never
 * read on {@code add}, {@code get} or {@code done} while nothing waits for a delay; with
 * a hook that records no durations it is read once per item, at hand-out. Metrics hooks
 * run after the lock is released.
 *
 * @param <T> the item type
 */
class BasicQueue<T> implements WorkQueue<T>, WakeablePolls<T> {

	/** The epoch of a plain get or poll, which {@link #wakePolls()} does not end. */
	private static final long NOT_WAKEABLE = Long.MIN_VALUE;

	/** Checks for a ready node before a consumer parks; a few microseconds at most. */
	private static final int HAND_OFF_SPINS = 256;

	/**
	 * Most due nodes an {@code add}, {@code addAfter}, {@code get} or {@code poll} moves
	 * into the FIFO, so that no caller holds the lock for long after a pause left many
	 * due (a leader that leaves with more due wakes another consumer).
	 */
	static final int DUE_BATCH = 256;

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

	/**
	 * Whether metrics are recorded: nodes are then {@link TimedNode}s, dated at hand-out.
	 */
	private final boolean timed;

	/**
	 * Whether the two durations are recorded: the clock is then read on add and done too.
	 */
	private final boolean durations;

	/** The longest a leader sleeps without looking at the waiting nodes again. */
	private final long heartbeatNanos;

	/**
	 * Items queued, processing or waiting; written under the lock, read without it by
	 * add.
	 */
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

	/** Nodes with a delay pending; guarded by lock. */
	private final NodeHeap<T> waiting = new NodeHeap<>();

	/** The consumer sleeping until the earliest ready time, if any; guarded by lock. */
	private Thread leader;

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

	/** addAfter calls with a positive delay; guarded by lock. */
	private long delayedAdds;

	/** addAfter calls with a delay of zero or less. */
	private final LongAdder immediateAdds = new LongAdder();

	/**
	 * Effective adds of due nodes whose {@code added} hook is still to run; guarded by
	 * lock, run by {@link #unlockAndRecordAdds()}.
	 */
	private int unrecordedAdds;

	BasicQueue(String name, Clock clock, WorkQueueMetrics metrics, long heartbeatNanos) {
		this.name = name;
		this.clock = clock;
		this.metrics = metrics;
		this.timed = metrics != WorkQueueMetrics.NOOP;
		this.durations = this.timed && metrics.recordsDurations();
		this.heartbeatNanos = heartbeatNanos;
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
		Node<T> fresh = newNode(item, hash, Node.QUEUED);
		long nowNanos = this.durations ? this.clock.nanoTime() : 0;
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return;
			}
			if (this.waiting.size() != 0) {
				releaseDue(this.durations ? nowNanos : this.clock.nanoTime(), DUE_BATCH);
			}
			Node<T> node = this.nodes.putIfAbsent(fresh);
			if (node == null) {
				// Lock-free readers may see the node before it is linked: harmless, as
				// no consumer can take it before the lock is released.
				queueNew(fresh, nowNanos);
			}
			else if (!queueAgain(node, nowNanos)) {
				return;
			}
		}
		finally {
			unlockAndRecordAdds();
		}
		if (this.timed) {
			this.metrics.added();
		}
	}

	/**
	 * {@link DelayingQueue#addAfter}, implemented here so that delayed items share the
	 * queue's nodes and lock.
	 * <p>
	 * With a positive delay: reads the clock, allocates the item's node unless it has
	 * one, and takes the lock once, inserting the node into the heap in O(log n) (an item
	 * already waiting keeps the earlier ready time). It never waits for another thread
	 * and never drops an item. It wakes a consumer only when the item becomes the
	 * earliest to wait.
	 */
	public void addAfter(T item, Duration delay) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		if (this.shuttingDown) {
			return;
		}
		long delayNanos = Nanos.of(delay);
		if (delayNanos <= 0) {
			// Counted only once the add went through: an item whose hashCode throws is
			// the caller's error, not a retry.
			add(item);
			this.immediateAdds.increment();
			this.metrics.retried();
			return;
		}
		Node<T> fresh = newNode(item, item.hashCode(), Node.WAITING);
		long nowNanos = this.clock.nanoTime();
		long readyAtNanos = Nanos.add(nowNanos, delayNanos);
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return;
			}
			// The item's own wait, if due, ends before the new one starts.
			releaseDue(nowNanos, DUE_BATCH);
			Node<T> node = this.nodes.putIfAbsent(fresh);
			this.delayedAdds++;
			if (node == null) {
				node = fresh;
				node.readyAtNanos = readyAtNanos;
				this.waiting.insert(node);
			}
			else if (!node.isWaiting()) {
				node.readyAtNanos = readyAtNanos;
				this.waiting.insert(node);
			}
			else if (node.readyAtNanos <= nowNanos) {
				// Due, but beyond the batch just moved: its wait ends before the new one.
				this.waiting.remove(node);
				addDue(node);
				node.readyAtNanos = readyAtNanos;
				this.waiting.insert(node);
			}
			else if (readyAtNanos < node.readyAtNanos) {
				this.waiting.lower(node, readyAtNanos);
			}
			else {
				node = null;
			}
			if (node != null && this.waiting.head() == node) {
				// A new earliest: the leader sleeps until a later time.
				this.leader = null;
				if (this.waitingConsumers > 0) {
					this.readyOrShutDown.signal();
				}
			}
		}
		finally {
			unlockAndRecordAdds();
		}
		this.metrics.retried();
	}

	private Node<T> newNode(T item, int hash, int state) {
		return this.timed ? new TimedNode<>(item, hash, state) : new Node<>(item, hash, state);
	}

	/** Queues a node just put in the map. Called with the lock held. */
	private void queueNew(Node<T> node, long nowNanos) {
		if (this.durations) {
			((TimedNode<T>) node).queuedAtNanos = nowNanos;
		}
		enqueue(node);
	}

	/**
	 * Adds an item that has a node already: queues it if it only waits, marks it dirty if
	 * it is being processed. Called with the lock held.
	 * @return whether the add was effective (client-go counts it)
	 */
	private boolean queueAgain(Node<T> node, long nowNanos) {
		switch (node.state) {
			case Node.PROCESSING -> {
				node.markDirty();
				this.dirtyCount++;
			}
			case Node.WAITING -> {
				node.markQueued();
				enqueue(node);
			}
			default -> {
				return false;
			}
		}
		if (this.durations) {
			((TimedNode<T>) node).queuedAtNanos = nowNanos;
		}
		return true;
	}

	/**
	 * Moves up to {@code limit} nodes due at {@code nowNanos} out of the heap, each added
	 * as {@code add} would (a node queued already stays where it is), earliest first.
	 * Called with the lock held.
	 */
	private void releaseDue(long nowNanos, int limit) {
		for (int moved = 0; moved < limit; moved++) {
			Node<T> node = this.waiting.pollDue(nowNanos);
			if (node == null) {
				return;
			}
			addDue(node);
		}
	}

	/**
	 * Moves up to {@code limit} nodes due now into the FIFO, reading the clock only if
	 * any node waits. Called with the lock held.
	 */
	private void releaseDueNow(int limit) {
		if (this.waiting.size() != 0) {
			releaseDue(this.clock.nanoTime(), limit);
		}
	}

	/**
	 * Adds a node whose delay ended, taken out of the heap. Called with the lock held.
	 */
	private void addDue(Node<T> node) {
		// Queued since its ready time: the queue duration counts the time it was due and
		// nobody was there to move it.
		if (queueAgain(node, node.readyAtNanos) && this.timed) {
			this.unrecordedAdds++;
		}
	}

	/**
	 * Releases the lock, then runs the {@code added} hook of the due nodes moved under
	 * it: never with the lock held, where a hook that reads the queue (its size, say)
	 * would move more due nodes and run hooks again, nested.
	 */
	private void unlockAndRecordAdds() {
		int adds = this.unrecordedAdds;
		this.unrecordedAdds = 0;
		this.lock.unlock();
		for (; adds > 0; adds--) {
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
			releaseDueNow(DUE_BATCH);
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
			if (this.leader == null && this.waiting.size() != 0 && this.waitingConsumers > 0) {
				// Nobody sleeps until the earliest ready time any more: let one do.
				this.readyOrShutDown.signal();
			}
			unlockAndRecordAdds();
		}
		if (this.durations) {
			this.metrics.handedOut(queuedNanos);
		}
		return item;
	}

	/**
	 * Waits for a ready node, moving due ones; null on shutdown, timeout or a changed
	 * epoch. Called with the lock held.
	 */
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
			boolean delays = this.waiting.size() != 0;
			long nowNanos = (bounded || delays) ? this.clock.nanoTime() : 0;
			if (delays) {
				releaseDue(nowNanos, DUE_BATCH);
			}
			if ((node = this.head) != null) {
				return node;
			}
			if (this.shuttingDown || (bounded && nowNanos >= deadlineNanos)) {
				return null;
			}
			long wakeAtNanos = bounded ? deadlineNanos : Long.MAX_VALUE;
			this.waitingConsumers++;
			try {
				if (this.waiting.size() == 0 || this.leader != null) {
					awaitUntil(bounded, wakeAtNanos);
				}
				else {
					Thread self = Thread.currentThread();
					this.leader = self;
					try {
						long headReadyAtNanos = this.waiting.head().readyAtNanos;
						awaitUntil(true, Math.min(wakeAtNanos,
								Math.min(headReadyAtNanos, Nanos.add(nowNanos, this.heartbeatNanos))));
					}
					finally {
						if (this.leader == self) {
							this.leader = null;
						}
					}
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
	 * Waits for a signal, and if {@code timed} on the clock until {@code wakeAtNanos}.
	 */
	private void awaitUntil(boolean timed, long wakeAtNanos) throws InterruptedException {
		if (timed) {
			this.clock.awaitUntil(this.lock, this.readyOrShutDown, wakeAtNanos);
		}
		else {
			this.readyOrShutDown.await();
		}
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
		// Read before anything changes: a clock that throws leaves the node queued.
		long nowNanos = this.timed ? this.clock.nanoTime() : 0;
		this.head = node.next;
		if (this.head == null) {
			this.tail = null;
		}
		node.next = null;
		this.readyCount--;
		node.markProcessing();
		this.processing.add(node, nowNanos);
		return this.durations ? nowNanos - ((TimedNode<T>) node).queuedAtNanos : 0;
	}

	@Override
	public void done(T item) {
		Objects.requireNonNull(item, "item");
		long workNanos = 0;
		this.lock.lock();
		try {
			Node<T> node = this.nodes.get(item);
			if (node == null || node.state == Node.QUEUED || node.state == Node.WAITING) {
				return;
			}
			if (this.durations) {
				workNanos = this.clock.nanoTime() - ((TimedNode<T>) node).startedAtNanos;
			}
			this.processing.remove(node);
			if (node.state == Node.DIRTY) {
				this.dirtyCount--;
				node.markRequeued();
				enqueue(node);
			}
			else if (node.isWaiting()) {
				node.markWaiting();
			}
			else {
				// The node stays PROCESSING forever, so a reader still holding it takes
				// the lock. The table keeps its size while items wait to come back.
				this.nodes.remove(node, this.waiting.size() == 0);
			}
			if (this.processing.size() == 0 && this.drainWaiters > 0) {
				this.drained.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
		if (this.durations) {
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

	/**
	 * {@inheritDoc}
	 * <p>
	 * Exact at the clock's reading: every item due by then counts as ready.
	 */
	@Override
	public int size() {
		this.lock.lock();
		try {
			releaseDueNow(Integer.MAX_VALUE);
			return this.readyCount;
		}
		finally {
			unlockAndRecordAdds();
		}
	}

	@Override
	public void shutDown() {
		this.lock.lock();
		try {
			stopWaiting();
			this.drainReleases++;
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
			stopWaiting();
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

	/**
	 * Marks the queue shutting down, drops every pending delay (an item that only waited
	 * leaves the map) and wakes every consumer. Called with the lock held.
	 */
	private void stopWaiting() {
		this.shuttingDown = true;
		this.waiting.clear((node) -> {
			if (node.state == Node.WAITING) {
				node.markDropped();
				this.nodes.remove(node, false);
			}
		});
		this.nodes.trim();
		this.leader = null;
		this.readyOrShutDown.signalAll();
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
	 * Exact at the clock's reading, as {@link #size()}. {@code waiting} counts the items
	 * with a delay pending, 0 once shut down; {@code retries} counts every
	 * {@code addAfter} not ignored.
	 */
	@Override
	public WorkQueueStats stats() {
		this.lock.lock();
		try {
			releaseDueNow(Integer.MAX_VALUE);
			int processingCount = this.processing.size();
			int waitingCount = this.waiting.size();
			long retries = this.delayedAdds + this.immediateAdds.sum();
			if (!this.timed) {
				return new WorkQueueStats(this.readyCount, processingCount, waitingCount, retries, 0, 0, 0,
						this.dirtyCount);
			}
			long nowNanos = this.clock.nanoTime();
			long headQueuedNanos = (this.head != null && this.durations)
					? nowNanos - ((TimedNode<T>) this.head).queuedAtNanos : 0;
			return new WorkQueueStats(this.readyCount, processingCount, waitingCount, retries, headQueuedNanos,
					this.processing.unfinishedNanos(nowNanos), this.processing.longestNanos(nowNanos), this.dirtyCount);
		}
		finally {
			unlockAndRecordAdds();
		}
	}

	/**
	 * Number of items in the internal map (queued, processing or waiting), for leak
	 * tests.
	 */
	int trackedItems() {
		this.lock.lock();
		try {
			return this.nodes.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Number of slots of the internal map, for tests of its sizing. */
	int tableCapacity() {
		this.lock.lock();
		try {
			return this.nodes.capacity();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Whether the calling thread holds the queue's lock, for tests of the hooks. */
	boolean isLockHeldByCurrentThread() {
		return this.lock.isHeldByCurrentThread();
	}

	long heartbeatNanos() {
		return this.heartbeatNanos;
	}

	@Override
	public String toString() {
		return "WorkQueue[" + this.name + "]";
	}

}
