package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

import dev.workqueue.MemoryInspector.Sighting;
import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.internal.ItemTable;
import dev.workqueue.internal.KeyedEntry;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The in-memory queue engine: client-go's {@code queue.go} and {@code delaying_queue.go}
 * in one class, their {@code dirty}, {@code processing} and waiting sets folded into one
 * map from item to {@link Node}, with the ready order behind a {@link ReadyOrder} seam
 * (client-go's {@code Queue[T]}): a {@link FifoOrder} for plain, delaying and
 * rate-limiting queues, a {@link PriorityOrder} for priority queues. It is the delaying
 * queue itself; {@link PlainWorkQueue} shows it without {@code addAfter}, and
 * {@link RateLimitingWorkQueue} and {@link PriorityWorkQueue} wrap it.
 * <p>
 * <b>Structures.</b> {@link #nodes}, an {@link ItemTable}, maps every item that is
 * queued, being processed or waiting for a delay to its node; the node's {@code state}
 * says which ({@link Node#QUEUED}, {@link Node#PROCESSING}, {@link Node#DIRTY}: being
 * processed and added again, or {@link Node#WAITING}: only waiting). Ready nodes are
 * linked by the order; nodes handed out are kept by a {@link ProcessingSet} (client-go's
 * {@code processing}), which also dates them when metrics are on; nodes with a delay
 * pending sit in a {@link NodeHeap} by ready time, whatever their state. One node serves
 * an item in every stage, so a delayed item costs one allocation, and nothing more when
 * its delay ends. An item is in the map exactly while it is queued, processing or
 * waiting, so the map empties when the queue does; it does not shrink while any node
 * waits, since the waiting items are due back.
 * <p>
 * <b>Delays without a thread.</b> Due nodes become ready when the queue is used:
 * {@code add}, {@code addAfter}, {@code get}, {@code poll} and the {@code done} that
 * lines an item up again first move the nodes due at the clock's reading (so an item
 * lined up after another fell due lines up behind it): a FIFO up to {@value #DUE_BATCH}
 * of them per call, so that no call holds the lock for a whole backlog (an item added
 * while more are due lines up behind the first {@value #DUE_BATCH} only), a priority
 * order all of them, since it must see every ready node to pick; {@code size},
 * {@code stats} and {@code readyLevels} move all of them. A consumer that finds nothing
 * ready waits as in the JDK's {@code DelayQueue}: one of them, the {@link #leader},
 * sleeps on the clock until the earliest ready time (or the heartbeat), the others until
 * signalled. A producer signals only when its node becomes the new earliest, and a leader
 * that leaves hands the role on. So a delayed item needs no hop through another thread,
 * and an idle queue runs no thread at all.
 * <p>
 * <b>Concurrency.</b> One {@link ReentrantLock} guards every mutation: the map, the node
 * fields, the order, the heap, the processing set, the counters and the shutdown flags.
 * Consumers wait on {@link #readyOrShutDown}, signalled once per node lined up and only
 * when someone waits; {@code shutDownWithDrain} waits on {@link #drained}. A consumer
 * that finds the queue empty first spins for a few microseconds without the lock (see
 * {@link #spinForReady()}). The one path that skips the lock is a duplicate {@code add}
 * to a FIFO (see {@link Node#absorbDuplicate()}; a priority add may raise a priority, so
 * it takes the lock): it looks the node up without the lock (which the table allows) and
 * succeeds only with a CAS on its state, which the hand-out ({@code QUEUED → PROCESSING})
 * and {@code done} ({@code DIRTY → QUEUED}) transitions read with an atomic
 * {@code getAndSet}. Hence every {@code add(x)} happens before the next hand-out of
 * {@code x} (through the lock or through that CAS), and actions before {@code add(x)} or
 * {@code addAfter(x, d)} are visible to the worker that next gets {@code x}. A
 * {@link Poller}'s wake-up is a volatile flag of that poller, set before the lock is
 * taken to signal the waiting consumers, and read under the lock before each wait.
 * <p>
 * <b>Cost.</b> A new item costs one node (40 bytes, 64 for a {@link TimedNode} when
 * metrics are on, a {@link PriorityNode} on a priority queue) and one table slot; a
 * delayed one a heap slot too. {@code add}, {@code get} and {@code done} take the lock
 * once each and probe the table once each ({@code get} not at all). The only other atomic
 * instruction on that path is the hand-out's {@code getAndSet}. With
 * {@link WorkQueueMetrics#NOOP} and no starvation guard the clock is never read on
 * {@code add}, {@code get} or {@code done} while nothing waits for a delay; with a hook
 * that records no durations it is read once per item, at hand-out; a starvation guard or
 * durations add a reading on add (and on the {@code done} that lines an item up again).
 * Metrics hooks run after the lock is released.
 * <p>
 * <b>Trace contexts.</b> A queue built with a {@link TraceContextSource} asks it once per
 * add, before the lock; an add that brings a context takes the lock (no lock-free
 * duplicate) and stores it in the {@link TraceBook}, as the parent when the add is the
 * item's first effective one since its last hand-out (a new node, or a node being
 * processed with no delay pending), as a link otherwise. The hand-out takes the item's
 * contexts for its {@link Poller} ({@link Poller#trace()}); plain {@code get} and
 * {@code poll} drop them. Without a source, or with no context, the book is never
 * touched: the add, its node and its hand-out cost what they did before.
 * <p>
 * <b>Inspection and pause.</b> The queue's {@link MemoryInspector}, its
 * {@link QueueInspector} capability, reads it under the lock, copying no more nodes than
 * a page needs (see {@link #look}), or for a search by text only the items' references
 * (see {@link #scan}). While {@link #paused} is set no item is handed out: {@code take}
 * treats the queue as empty, at the cost of one field read under the lock it holds
 * already; a resume wakes every waiting consumer. Shutdown still ends the waits of a
 * paused queue, whose {@code get} then returns {@code null} even with items ready: its
 * consumers stop rather than wait for a resume that may never come.
 *
 * @param <T> the item type
 */
final class DelayingWorkQueue<T> implements DelayingQueue<T>, PollerFactory<T> {

	/** Checks for a ready node before a consumer parks; a few microseconds at most. */
	private static final int HAND_OFF_SPINS = 256;

	/**
	 * Most due nodes an {@code add}, {@code addAfter}, {@code get} or {@code poll} moves
	 * into the ready order, so that no caller holds the lock for long after a pause left
	 * many due (a leader that leaves with more due wakes another consumer).
	 */
	static final int DUE_BATCH = 256;

	/**
	 * A time the queue does not know, in a {@link Sighting}: when a node became ready or
	 * was handed out, on a queue that does not date it.
	 */
	static final long UNDATED = Long.MIN_VALUE;

	private static final VarHandle READY_COUNT;

	static {
		try {
			READY_COUNT = MethodHandles.lookup().findVarHandle(DelayingWorkQueue.class, "readyCount", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final String name;

	private final Clock clock;

	private final WorkQueueMetrics metrics;

	private final ReadyOrder<T> order;

	/** Where adds get their trace context, guarded; {@code null} for none. */
	private final TraceContextSource traceSource;

	/**
	 * The contexts of the items that have one; {@code null} without a source. Guarded by
	 * lock.
	 */
	private final TraceBook<T> traces;

	/**
	 * Whether metrics are recorded: the processing set then dates its nodes, and the
	 * clock is read at hand-out.
	 */
	private final boolean timed;

	/**
	 * Whether the two durations are recorded: the clock is then read on add and done too.
	 */
	private final boolean durations;

	/**
	 * Whether the order wants ready times: the clock is then read on add and hand-out.
	 */
	private final boolean readyTimes;

	/** Whether an add that lines an item up reads the clock: durations or ready times. */
	private final boolean clockOnAdd;

	/** Whether a hand-out reads the clock: metrics or ready times. */
	private final boolean clockOnHandOut;

	/** Whether a duplicate add may be absorbed without the lock. */
	private final boolean lockFreeDuplicates;

	/**
	 * How many due nodes an add, get or done lines up at most (see the class Javadoc).
	 */
	private final int dueBatch;

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

	/** Nodes handed out and not yet done; guarded by lock. */
	private final ProcessingSet<T> processing;

	/** Nodes with a delay pending; guarded by lock. */
	private final NodeHeap<T> waiting = new NodeHeap<>();

	/** The consumer sleeping until the earliest ready time, if any; guarded by lock. */
	private Thread leader;

	/**
	 * Nodes in the order (client-go's {@code Len}); written under the lock, read without
	 * it as a hint by {@link #spinForReady()}.
	 */
	private int readyCount;

	/** Nodes in state DIRTY (processing and added again); guarded by lock. */
	private int dirtyCount;

	/** Threads waiting in get/poll; guarded by lock. */
	private int waitingConsumers;

	/** Threads waiting in shutDownWithDrain; guarded by lock. */
	private int drainWaiters;

	/** Number of shutDown calls: a drain returns when it changes; guarded by lock. */
	private long drainReleases;

	/** Written under the lock; read without it by {@link #isShuttingDown()}. */
	private volatile boolean shuttingDown;

	/** Whether nothing is handed out; guarded by lock. */
	private boolean paused;

	/** The queue's look for operators, made with it. */
	private final MemoryInspector<T> inspector;

	/** addAfter calls with a positive delay; guarded by lock. */
	private long delayedAdds;

	/** addAfter calls with a delay of zero or less. */
	private final LongAdder immediateAdds = new LongAdder();

	/**
	 * Effective adds of due nodes whose {@code added} hook is still to run; guarded by
	 * lock, run by {@link #unlockAndRecordAdds()}.
	 */
	private int unrecordedAdds;

	/**
	 * Creates a queue.
	 * @param name its name
	 * @param clock its clock
	 * @param metrics its hook, guarded
	 * @param heartbeatNanos the longest a leader sleeps
	 * @param order its ready order, new
	 * @param traceSource where adds get their trace context, guarded, or {@code null}
	 * @param inspection what its inspector shows beyond the queue's own state
	 */
	DelayingWorkQueue(String name, Clock clock, WorkQueueMetrics metrics, long heartbeatNanos, ReadyOrder<T> order,
			TraceContextSource traceSource, MemoryInspector.Options<T> inspection) {
		this.name = name;
		this.traceSource = traceSource;
		this.traces = (traceSource != null) ? new TraceBook<>() : null;
		this.clock = clock;
		this.metrics = metrics;
		this.heartbeatNanos = heartbeatNanos;
		this.order = order;
		this.timed = metrics != WorkQueueMetrics.NOOP;
		this.durations = this.timed && metrics.recordsDurations();
		this.readyTimes = order.tracksReadyTimes();
		this.clockOnAdd = this.durations || this.readyTimes;
		this.clockOnHandOut = this.timed || this.readyTimes;
		this.lockFreeDuplicates = order.ignoresTouches();
		this.dueBatch = order.linesUpDueInBatches() ? DUE_BATCH : Integer.MAX_VALUE;
		this.processing = new ProcessingSet<>(this.timed);
		// The inspector keeps the queue to read it, and reads it only once published.
		this.inspector = new MemoryInspector<>(this, clock, inspection);
	}

	@Override
	public void add(T item) {
		add(item, 0);
	}

	/**
	 * {@link #add(Object)} with a priority, which a FIFO order ignores. Only the
	 * lock-free duplicate check is here, small enough for the compiler to inline it into
	 * the caller; an add with a trace context takes the lock, to store it.
	 */
	void add(T item, int priority) {
		Objects.requireNonNull(item, "item");
		String context = (this.traceSource != null) ? this.traceSource.currentContext() : null;
		int hash = item.hashCode();
		Node<T> existing = this.nodes.get(item, hash);
		if (existing == null || !this.lockFreeDuplicates || context != null || !existing.absorbDuplicate()) {
			addUnderLock(item, hash, existing, priority, context);
		}
	}

	/**
	 * {@link #add(Object, int)} with the trace context read already ({@code null} for
	 * none), for the adds that read it once for more than one item or before they know
	 * whether they delay.
	 */
	private void add(T item, int priority, String context) {
		int hash = item.hashCode();
		Node<T> existing = this.nodes.get(item, hash);
		if (existing == null || !this.lockFreeDuplicates || context != null || !existing.absorbDuplicate()) {
			addUnderLock(item, hash, existing, priority, context);
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Reads the trace context once for all the items.
	 */
	@Override
	public void addAll(Collection<? extends T> items) {
		List<? extends T> all = List.copyOf(items);
		String context = (this.traceSource != null) ? this.traceSource.currentContext() : null;
		for (T item : all) {
			add(item, 0, context);
		}
	}

	/**
	 * Whether an add of a node that is in the map is the item's first effective add since
	 * its last hand-out: the node is being processed and no delayed add of it is pending
	 * (a node that waits, or is queued, was added already). Called with the lock held.
	 */
	private static boolean firstSinceHandOut(Node<?> node) {
		return node.state == Node.PROCESSING && !node.isWaiting();
	}

	/**
	 * The add that takes the lock; {@code existing} is what the unlocked look-up saw,
	 * {@code context} the trace context to store, or {@code null}.
	 */
	private void addUnderLock(T item, int hash, Node<T> existing, int priority, String context) {
		Node<T> fresh = (existing != null) ? null : this.order.newNode(item, hash, Node.QUEUED);
		// The clock is read outside the lock for a new item, under it only when needed.
		boolean read = this.clockOnAdd && fresh != null;
		long nowNanos = read ? this.clock.nanoTime() : 0;
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return;
			}
			if (this.waiting.size() != 0) {
				if (!read) {
					nowNanos = this.clock.nanoTime();
					read = true;
				}
				releaseDue(nowNanos, this.dueBatch);
			}
			Node<T> node = (fresh != null) ? this.nodes.putIfAbsent(fresh) : this.nodes.get(item, hash);
			if (context != null) {
				this.traces.add(item, hash, context, node == null || firstSinceHandOut(node));
			}
			if (node != null && (node.state == Node.QUEUED || node.state == Node.DIRTY)) {
				this.order.touch(node, priority);
				return;
			}
			if (this.clockOnAdd && !read) {
				nowNanos = this.clock.nanoTime();
			}
			if (node != null) {
				queueAgain(node, priority, nowNanos);
			}
			else {
				if (fresh == null) {
					// Its node left the map since the unlocked look-up.
					fresh = this.order.newNode(item, hash, Node.QUEUED);
					this.nodes.putIfAbsent(fresh);
				}
				// Lock-free readers may see the node before it is lined up: harmless, as
				// no consumer can take it before the lock is released.
				queueNew(fresh, priority, nowNanos);
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
	 * {@inheritDoc}
	 * <p>
	 * With a positive delay: reads the clock, allocates the item's node unless it has
	 * one, and takes the lock once, inserting the node into the heap in O(log n) (an item
	 * already waiting keeps the earlier ready time). It never waits for another thread
	 * and never drops an item. It wakes a consumer only when the item becomes the
	 * earliest to wait.
	 */
	@Override
	public void addAfter(T item, Duration delay) {
		addAfter(item, delay, 0);
	}

	/** {@link #addAfter(Object, Duration)} with a priority, which a FIFO ignores. */
	void addAfter(T item, Duration delay, int priority) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		if (this.shuttingDown) {
			return;
		}
		long delayNanos = Nanos.of(delay);
		String context = (this.traceSource != null) ? this.traceSource.currentContext() : null;
		if (delayNanos <= 0) {
			// Counted only once the add went through: an item whose hashCode throws is
			// the caller's error, not a retry.
			add(item, priority, context);
			this.immediateAdds.increment();
			this.metrics.retried();
			return;
		}
		Node<T> fresh = this.order.newNode(item, item.hashCode(), Node.WAITING);
		long nowNanos = this.clock.nanoTime();
		long readyAtNanos = Nanos.add(nowNanos, delayNanos);
		this.lock.lock();
		try {
			if (this.shuttingDown) {
				return;
			}
			// The item's own wait, if due, ends before the new one starts.
			releaseDue(nowNanos, this.dueBatch);
			Node<T> node = this.nodes.putIfAbsent(fresh);
			this.delayedAdds++;
			if (context != null) {
				this.traces.add(item, fresh.hash, context, node == null || firstSinceHandOut(node));
			}
			if (node == null) {
				node = fresh;
				startWait(node, readyAtNanos, priority);
			}
			else if (!node.isWaiting()) {
				startWait(node, readyAtNanos, priority);
			}
			else if (node.readyAtNanos <= nowNanos) {
				// Due, but beyond the batch just moved: its wait ends before the new one.
				this.waiting.remove(node);
				addDue(node);
				startWait(node, readyAtNanos, priority);
			}
			else {
				this.order.delay(node, priority);
				if (readyAtNanos < node.readyAtNanos) {
					this.waiting.lower(node, readyAtNanos);
				}
				else {
					node = null;
				}
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

	/** Puts a node that does not wait into the heap. Called with the lock held. */
	private void startWait(Node<T> node, long readyAtNanos, int priority) {
		this.order.delay(node, priority);
		node.readyAtNanos = readyAtNanos;
		this.waiting.insert(node);
	}

	/** Lines up a node just put in the map. Called with the lock held. */
	private void queueNew(Node<T> node, int priority, long nowNanos) {
		if (this.durations) {
			((TimedNode<T>) node).queuedAtNanos = nowNanos;
		}
		this.order.push(node, priority, nowNanos);
		lineUp();
	}

	/**
	 * Adds an item that has a node already: lines it up if it only waits, marks it dirty
	 * if it is being processed, tells the order otherwise. Called with the lock held.
	 * @return whether the add was effective (client-go counts it)
	 */
	private boolean queueAgain(Node<T> node, int priority, long nowNanos) {
		switch (node.state) {
			case Node.PROCESSING -> {
				node.markDirty();
				this.dirtyCount++;
				this.order.touch(node, priority);
			}
			case Node.WAITING -> {
				node.markQueued();
				this.order.push(node, priority, nowNanos);
				lineUp();
			}
			default -> {
				this.order.touch(node, priority);
				return false;
			}
		}
		if (this.durations) {
			((TimedNode<T>) node).queuedAtNanos = nowNanos;
		}
		return true;
	}

	/** Counts a node just pushed and wakes one consumer. Called with the lock held. */
	private void lineUp() {
		this.readyCount++;
		if (this.waitingConsumers > 0) {
			this.readyOrShutDown.signal();
		}
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
	 * Moves up to {@code limit} nodes due now into the order, reading the clock only if
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
		// Ready since its ready time: the queue duration counts the time it was due and
		// nobody was there to move it, and due times come out in order, so the order's
		// ready ages stay sorted.
		if (queueAgain(node, this.order.delayedPriority(node), node.readyAtNanos) && this.timed) {
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
		Node<T> taken = take(false, 0, null);
		return (taken != null) ? taken.item : null;
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		Node<T> taken = take(true, Nanos.of(Objects.requireNonNull(timeout, "timeout")), null);
		return (taken != null) ? taken.item : null;
	}

	/**
	 * {@link #get()}, or with a timeout {@link #poll(Duration)}, with the priority the
	 * item was handed out with.
	 */
	Prioritized<T> takeWithPriority(Duration timeout) throws InterruptedException {
		return prioritized(take(timeout != null, (timeout != null) ? Nanos.of(timeout) : 0, null));
	}

	/**
	 * The taken node's item with the priority it was handed out with. Read by the taker
	 * after the lock: only its own {@code done} changes that priority again.
	 */
	private Prioritized<T> prioritized(Node<T> taken) {
		return (taken != null) ? new Prioritized<>(taken.item, this.order.priority(taken)) : null;
	}

	/**
	 * Returns a poller whose wake-up ends its own polls only.
	 */
	@Override
	public Poller<T> newPoller() {
		return new WorkerPoller();
	}

	/**
	 * Takes the next node; a poll of a {@code poller} returns {@code null} at once if its
	 * wake-up is pending or comes during the wait.
	 */
	private Node<T> take(boolean bounded, long timeoutNanos, WorkerPoller poller) throws InterruptedException {
		Node<T> node;
		long queuedNanos;
		if (poller != null) {
			poller.trace = null;
		}
		this.lock.lock();
		try {
			if (poller != null && poller.consumeWakeup()) {
				return null;
			}
			releaseDueNow(this.dueBatch);
			if ((this.readyCount == 0 || this.paused) && !awaitReady(bounded, timeoutNanos, poller)) {
				return null;
			}
			// Read before anything changes: a clock that throws leaves the node queued.
			long nowNanos = this.clockOnHandOut ? this.clock.nanoTime() : 0;
			node = this.order.pop(nowNanos);
			this.readyCount--;
			if (this.traces != null && this.traces.size() != 0) {
				ItemTrace trace = this.traces.handOut(node);
				if (poller != null) {
					poller.trace = trace;
				}
			}
			node.markProcessing();
			this.processing.add(node, nowNanos);
			queuedNanos = this.durations ? nowNanos - ((TimedNode<T>) node).queuedAtNanos : 0;
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
		return node;
	}

	/**
	 * Waits for a ready node and no pause, moving due ones; false on shutdown, timeout or
	 * a wake-up of {@code poller}. Called with the lock held.
	 */
	private boolean awaitReady(boolean bounded, long timeoutNanos, WorkerPoller poller) throws InterruptedException {
		if (bounded && timeoutNanos <= 0) {
			return false;
		}
		long deadlineNanos = bounded ? Nanos.add(this.clock.nanoTime(), timeoutNanos) : 0;
		if (!this.shuttingDown) {
			spinForReady();
		}
		// The wake-up before the ready nodes: a poll woken for a pause takes nothing.
		while (poller == null || !poller.consumeWakeup()) {
			boolean delays = this.waiting.size() != 0;
			long nowNanos = (bounded || delays) ? this.clock.nanoTime() : 0;
			if (delays) {
				releaseDue(nowNanos, this.dueBatch);
			}
			if (this.readyCount != 0 && !this.paused) {
				return true;
			}
			if (this.shuttingDown || (bounded && nowNanos >= deadlineNanos)) {
				return false;
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
		// Woken for a pause. Had this poll taken the signal of a node lined up, the
		// wake-up's signalAll, which follows its flag, woke the other consumers too.
		return false;
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
	 * unpark would fall on the producer. The unlocked read of {@code readyCount} is only
	 * a hint: the caller checks again under the lock.
	 */
	private void spinForReady() {
		this.lock.unlock();
		try {
			for (int spins = HAND_OFF_SPINS; spins > 0 && (int) READY_COUNT.getOpaque(this) == 0; spins--) {
				Thread.onSpinWait();
			}
		}
		finally {
			this.lock.lock();
		}
	}

	/** Wakes every waiting consumer, so that a woken poller among them returns. */
	private void signalWaiting() {
		this.lock.lock();
		try {
			if (this.waitingConsumers > 0) {
				this.readyOrShutDown.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
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
			boolean dirty = node.state == Node.DIRTY;
			boolean moveDue = dirty && this.waiting.size() != 0;
			long nowNanos = (this.durations || moveDue || (dirty && this.readyTimes)) ? this.clock.nanoTime() : 0;
			if (this.durations) {
				workNanos = nowNanos - ((TimedNode<T>) node).startedAtNanos;
			}
			if (moveDue) {
				// What fell due lines up before the item: it became ready earlier (which
				// keeps the order's ready ages sorted).
				releaseDue(nowNanos, this.dueBatch);
			}
			this.processing.remove(node);
			if (dirty) {
				this.dirtyCount--;
				node.markRequeued();
				this.order.requeue(node, nowNanos);
				lineUp();
			}
			else if (node.isWaiting()) {
				node.markWaiting();
			}
			else {
				// The node stays PROCESSING forever, so a reader still holding it takes
				// the lock. The table keeps its size while items wait to come back.
				this.nodes.remove(node, this.waiting.size() == 0);
				if (this.traces != null && this.traces.size() != 0) {
					// A parent kept for a delay that shutdown dropped.
					this.traces.forget(node);
				}
			}
			if (this.processing.size() == 0 && this.drainWaiters > 0) {
				this.drained.signalAll();
			}
		}
		finally {
			unlockAndRecordAdds();
		}
		if (this.durations) {
			this.metrics.done(workNanos);
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
				if (this.traces != null) {
					this.traces.forget(node);
				}
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
	 * {@code addAfter} not ignored; {@code headQueuedNanos} is the age of the item ready
	 * longest.
	 */
	@Override
	public WorkQueueStats stats() {
		this.lock.lock();
		try {
			releaseDueNow(Integer.MAX_VALUE);
			WorkQueueStats.Builder stats = WorkQueueStats.builder()
				.depth(this.readyCount)
				.processing(this.processing.size())
				.waiting(this.waiting.size())
				.retries(this.delayedAdds + this.immediateAdds.sum())
				.addedWhileProcessing(this.dirtyCount);
			if (!this.timed) {
				return stats.build();
			}
			long nowNanos = this.clock.nanoTime();
			Node<T> oldest = this.order.oldest();
			if (oldest != null && this.durations) {
				stats.headQueuedNanos(nowNanos - ((TimedNode<T>) oldest).queuedAtNanos);
			}
			return stats.unfinishedWorkNanos(this.processing.unfinishedNanos(nowNanos))
				.longestRunningProcessorNanos(this.processing.longestNanos(nowNanos))
				.build();
		}
		finally {
			unlockAndRecordAdds();
		}
	}

	/**
	 * {@link PriorityQueue#readyLevels()}: exact at the clock's reading, as
	 * {@link #size()}.
	 */
	List<Level> readyLevels() {
		this.lock.lock();
		try {
			releaseDueNow(Integer.MAX_VALUE);
			return this.order.levels(this.readyTimes ? this.clock.nanoTime() : 0);
		}
		finally {
			unlockAndRecordAdds();
		}
	}

	/**
	 * Copies the items in one state, in the inspector's order: the ready ones in hand-out
	 * order, the processing ones oldest first (in no set order on a queue without
	 * metrics, which does not date its hand-outs: then the table is scanned), the waiting
	 * ones soonest first. Under the lock, after moving every due node as {@link #size()}
	 * does; copies at most {@code offset + limit} nodes.
	 * @param state {@link ItemState#READY}, {@link ItemState#PROCESSING} or
	 * {@link ItemState#WAITING}
	 * @param offset how many to skip
	 * @param limit how many at most
	 * @return the sightings
	 */
	List<Sighting<T>> look(ItemState state, int offset, int limit) {
		int count = (int) Math.min((long) offset + limit, Integer.MAX_VALUE);
		List<Node<T>> nodes = new ArrayList<>();
		this.lock.lock();
		try {
			releaseDueNow(Integer.MAX_VALUE);
			int held = switch (state) {
				case READY -> this.readyCount;
				case PROCESSING -> this.processing.size();
				case WAITING -> this.waiting.size();
				default -> throw new IllegalArgumentException("state " + state + " is not kept by the queue");
			};
			if (offset >= held) {
				return List.of();
			}
			switch (state) {
				case READY -> this.order.copyReady(this.readyTimes ? this.clock.nanoTime() : 0, count, nodes);
				case PROCESSING -> copyProcessing(count, nodes);
				default -> this.waiting.copyEarliest(count, nodes);
			}
			List<Sighting<T>> seen = new ArrayList<>(Math.max(0, nodes.size() - offset));
			for (int i = offset; i < nodes.size(); i++) {
				seen.add(sighting(nodes.get(i), state));
			}
			return seen;
		}
		finally {
			unlockAndRecordAdds();
		}
	}

	/**
	 * Copies up to {@code count} nodes handed out. Undated, they are found by a walk of
	 * the table that stops once it has {@code count} of them, or all there are. Called
	 * with the lock held.
	 */
	private void copyProcessing(int count, List<Node<T>> into) {
		if (this.processing.dated()) {
			this.processing.copyOldest(count, into);
			return;
		}
		int wanted = Math.min(count, this.processing.size());
		if (wanted > 0) {
			this.nodes.forEachWhile((node) -> {
				if (node.state == Node.PROCESSING || node.state == Node.DIRTY) {
					into.add(node);
				}
				return into.size() < wanted;
			});
		}
	}

	/**
	 * Finds an item in every state it is in: processing (an item added again while
	 * processed is shown so only, as it is not in the ready order yet), ready, waiting.
	 * @param item the item
	 * @return the sightings, empty if the queue does not have it
	 */
	List<Sighting<T>> find(Object item) {
		this.lock.lock();
		try {
			releaseDueNow(Integer.MAX_VALUE);
			Node<T> node = this.nodes.get(item);
			if (node == null) {
				return List.of();
			}
			List<Sighting<T>> seen = new ArrayList<>(2);
			if (node.state == Node.PROCESSING || node.state == Node.DIRTY) {
				seen.add(sighting(node, ItemState.PROCESSING));
			}
			else if (node.state == Node.QUEUED) {
				seen.add(sighting(node, ItemState.READY));
			}
			if (node.isWaiting()) {
				seen.add(sighting(node, ItemState.WAITING));
			}
			return seen;
		}
		finally {
			unlockAndRecordAdds();
		}
	}

	/**
	 * Returns an item of the queue that {@code match} accepts, the first in the table's
	 * order. Under the lock only the nodes' references are copied, into one array, from
	 * the table's slots in order (about 5 ms for a million; reading each node's item
	 * there would cost a cache miss per node); their items (a final field) are read, and
	 * tested (an item's text made for each), after the lock is released.
	 * @param match the test
	 * @return an item, or {@code null}
	 */
	T scan(Predicate<? super T> match) {
		KeyedEntry<?>[] nodes;
		this.lock.lock();
		try {
			nodes = this.nodes.entries();
		}
		finally {
			this.lock.unlock();
		}
		for (KeyedEntry<?> node : nodes) {
			@SuppressWarnings("unchecked")
			T item = (T) node.item;
			if (match.test(item)) {
				return item;
			}
		}
		return null;
	}

	/** What a view shows of a node in {@code state}. Called with the lock held. */
	private Sighting<T> sighting(Node<T> node, ItemState state) {
		return switch (state) {
			case READY -> new Sighting<>(node.item, state, this.order.priority(node), readySinceNanos(node));
			case PROCESSING -> new Sighting<>(node.item, state, this.order.priority(node),
					this.processing.dated() ? ((TimedNode<T>) node).startedAtNanos : UNDATED);
			default -> new Sighting<>(node.item, state, this.order.delayedPriority(node), node.readyAtNanos);
		};
	}

	/** When a ready node became ready, if the queue knows. Called with the lock held. */
	private long readySinceNanos(Node<T> node) {
		return this.durations ? ((TimedNode<T>) node).queuedAtNanos : this.order.readySinceNanos(node);
	}

	/**
	 * Pauses the queue or resumes it, waking every waiting consumer on resume.
	 * @param pause whether to pause
	 */
	void pause(boolean pause) {
		this.lock.lock();
		try {
			this.paused = pause;
			if (!pause && this.waitingConsumers > 0) {
				this.readyOrShutDown.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Whether the queue is paused.
	 * @return {@code true} while paused
	 */
	boolean paused() {
		this.lock.lock();
		try {
			return this.paused;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Also the queue's {@link QueueInspector}, which every wrapper passes the lookup on
	 * to.
	 */
	@Override
	public <C> Optional<C> capability(Class<C> type) {
		Optional<C> own = DelayingQueue.super.capability(type);
		return (own.isPresent() || !type.isInstance(this.inspector)) ? own : Optional.of(type.cast(this.inspector));
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

	/** Number of items with trace contexts, for leak tests; 0 without a source. */
	int tracedItems() {
		this.lock.lock();
		try {
			return (this.traces != null) ? this.traces.size() : 0;
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

	/** The ready order, for the wrappers' descriptions. */
	ReadyOrder<T> order() {
		return this.order;
	}

	@Override
	public String toString() {
		return "DelayingQueue[" + this.name + "]";
	}

	/**
	 * A worker thread's poller: its wake-up is a flag of its own, so that it ends this
	 * poller's polls and no other.
	 */
	private final class WorkerPoller implements Poller<T> {

		/**
		 * Set by {@link #wakeup()} before the lock is taken to signal; read and cleared
		 * under the lock by this poller's thread, before each wait.
		 */
		private volatile boolean woken;

		/**
		 * The contexts of the item the last poll returned; written by this poller's
		 * thread in {@code take}, read by it after.
		 */
		ItemTrace trace;

		@Override
		public Prioritized<T> poll(Duration timeout) throws InterruptedException {
			Objects.requireNonNull(timeout, "timeout");
			return prioritized(take(true, Nanos.of(timeout), this));
		}

		@Override
		public ItemTrace trace() {
			return this.trace;
		}

		@Override
		public Prioritized<T> doneAndPoll(T done, Duration timeout) throws InterruptedException {
			Objects.requireNonNull(timeout, "timeout");
			DelayingWorkQueue.this.done(done);
			return poll(timeout);
		}

		@Override
		public void wakeup() {
			this.woken = true;
			signalWaiting();
		}

		/** Whether a wake-up is pending, which it uses up. Called with the lock held. */
		boolean consumeWakeup() {
			if (!this.woken) {
				return false;
			}
			this.woken = false;
			return true;
		}

	}

}
