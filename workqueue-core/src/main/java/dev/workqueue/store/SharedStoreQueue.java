package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongConsumer;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.PriorityHandle;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.store.QueueDriver.Figures;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * One instance's handle on a queue that a shared store (Redis, PostgreSQL) keeps for
 * every instance with the same name: the queue's operations, written once for every store
 * over its drivers. Built by a store's builder; rate limiting wraps it as core's does
 * ({@link dev.workqueue.WorkQueues#rateLimiting}), and
 * {@link dev.workqueue.spi.SharedPriorityQueue} is the {@link PriorityQueue} over a
 * handle whose store keeps the ready items in priority order (a plain one drops the
 * priorities). Part of the shared-store engine, used by store modules; may change before
 * 1.0.
 * <p>
 * <b>State.</b> All shared state lives in the store, and each change of an item's state
 * is one store call (a Lua script, a statement), so client-go's rules hold across
 * instances. The handle keeps only the leases it holds ({@link LeaseBook}), renewed by
 * its {@link TimedWork}; its adds and reads go through the store's {@link QueueDriver},
 * its consumers take items as {@link ItemTaker} says, and its holds end as
 * {@link LeaseReleases} says. An item whose holder stopped renewing returns to the queue,
 * and the former holder's late {@code done} names a token the store no longer has: it
 * changes nothing. At least once, and never two live holders.
 * <p>
 * <b>Parts.</b> The builder makes the parts first, each with what it uses, and this
 * handle last: none of them calls back into it.
 * <p>
 * <b>Adds.</b> Each add checks and encodes its items before anything is sent, and, unless
 * the handle is shut down, asks the trace context source once, on the adding thread. It
 * counts what it added (the hook's {@code added}) on its own thread after its store call,
 * also when the store wrote it together with other threads' adds: a hook may add to this
 * queue. Every {@code addAfter} counts as a retry, as in client-go, unless the handle is
 * shut down.
 * <p>
 * <b>Happens-before.</b> Actions before {@code add(x)} in one instance happen before the
 * actions after the {@code get} that returns {@code x} in any instance only through the
 * store: the add's store call completes before the claim that finds {@code x}.
 * <p>
 * <b>Shutdown</b> is this instance's only: adds are ignored (an add that fails because it
 * raced the shutdown too, as every add after it), {@code get} hands out nothing more,
 * items claimed ahead are handed back, and queued and delayed items stay in the store for
 * the others. The handle renews what it holds until each item is done or
 * {@linkplain #handBack() handed back}; then its timed work ends and gives back what it
 * used.
 * <p>
 * Thread-safe: the parts keep the state, each with its own locking; the handle's only
 * state of its own is the count of retries. Not final only so that a store may add an
 * interface without methods of its own (Redis's deprecated {@code SharedQueue}), so that
 * lookups by that interface still find its handles.
 *
 * @param <T> the item type
 * @param <L> the store's lease type
 */
public class SharedStoreQueue<T, L extends Lease> implements PriorityHandle<T>, SharedQueue, PollerFactory<T> {

	private final String name;

	private final ItemCodec<T> codec;

	private final QueueDriver driver;

	private final Clock clock;

	/** The user's hook, guarded: a hook that throws costs its call only. */
	private final WorkQueueMetrics metrics;

	private final LeaseBook<T, L> book;

	private final ReadySignal signal;

	private final HandleLifecycle lifecycle;

	private final ItemTaker<T, L> taker;

	private final LeaseReleases<T, L> releases;

	private final TimedWork<L, ?> work;

	/** Where adds get their trace context, guarded; {@code null} for none. */
	private final TraceContextSource traceSource;

	/** Counts an add's new items; one object, so that no add allocates one. */
	private final LongConsumer addCounter = this::countAdded;

	private final LongAdder retries = new LongAdder();

	/** The queue's look for operators, over the driver's {@link InspectionDriver}. */
	private final StoreInspector<T> inspector;

	/**
	 * Makes the handle over its parts; the builder starts the timed work after.
	 * @param name the queue's name
	 * @param codec the codec of the queue's items
	 * @param driver the store's adds and reads
	 * @param clock the handle's clock
	 * @param metrics the queue's hook, guarded
	 * @param book the handle's leases
	 * @param signal the handle's ready signal
	 * @param lifecycle the handle's lifecycle
	 * @param taker the handle's consumers' takes
	 * @param releases the handle's releases
	 * @param work the handle's timed work
	 * @param traceSource where adds get their trace context, guarded, or {@code null}
	 */
	public SharedStoreQueue(String name, ItemCodec<T> codec, QueueDriver driver, Clock clock, WorkQueueMetrics metrics,
			LeaseBook<T, L> book, ReadySignal signal, HandleLifecycle lifecycle, ItemTaker<T, L> taker,
			LeaseReleases<T, L> releases, TimedWork<L, ?> work, TraceContextSource traceSource) {
		this.name = name;
		this.codec = codec;
		this.driver = driver;
		this.clock = clock;
		this.metrics = metrics;
		this.book = book;
		this.signal = signal;
		this.lifecycle = lifecycle;
		this.taker = taker;
		this.releases = releases;
		this.work = work;
		this.traceSource = traceSource;
		this.inspector = new StoreInspector<>(codec, driver.inspection(), taker::aheadEncodings);
	}

	@Override
	public void add(T item) {
		add(item, 0);
	}

	/**
	 * Adds an item with a priority, which a store without priorities drops.
	 * @param item the item
	 * @param priority the priority
	 * @throws IllegalArgumentException if the priority is out of range, or the store
	 * cannot keep the item's encoding, before anything reaches the store
	 */
	@Override
	public void add(T item, int priority) {
		PriorityQueue.checkPriority(priority);
		String encoded = encode(item);
		if (!this.lifecycle.enter()) {
			return;
		}
		try {
			countAdded(this.driver.add(encoded, priority, currentContext()));
		}
		catch (RuntimeException ex) {
			ignoreIfShutDown(ex);
		}
		finally {
			this.lifecycle.exit();
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Every item is encoded before anything is sent, and the trace context is asked for
	 * once. The items go at priority 0 in as few store calls as the store allows, sent
	 * before the first answer is awaited; when some of them failed and others wrote their
	 * items, the store's exception says so.
	 */
	@Override
	public void addAll(Collection<? extends T> items) {
		List<String> encoded = new ArrayList<>(items.size());
		for (T item : items) {
			encoded.add(encode(item));
		}
		if (encoded.isEmpty() || !this.lifecycle.enter()) {
			return;
		}
		try {
			this.driver.addAll(encoded, currentContext(), this.addCounter);
		}
		catch (RuntimeException ex) {
			ignoreIfShutDown(ex);
		}
		finally {
			this.lifecycle.exit();
		}
	}

	@Override
	public void addAfter(T item, Duration delay) {
		addAfter(item, delay, 0);
	}

	/**
	 * Adds an item with a priority, which a store without priorities drops, once the
	 * delay has passed.
	 * @param item the item
	 * @param delay the delay; zero or less is an add
	 * @param priority the priority
	 * @throws IllegalArgumentException if the priority is out of range, or the store
	 * cannot keep the item's encoding, before anything reaches the store
	 */
	@Override
	public void addAfter(T item, Duration delay, int priority) {
		Objects.requireNonNull(delay, "delay");
		PriorityQueue.checkPriority(priority);
		long delayNanos = Nanos.of(delay);
		if (delayNanos <= 0) {
			add(item, priority);
		}
		else {
			String encoded = encode(item);
			if (!this.lifecycle.enter()) {
				return;
			}
			try {
				this.driver.addAfter(encoded, priority, delayNanos, currentContext());
			}
			catch (RuntimeException ex) {
				ignoreIfShutDown(ex);
				return;
			}
			finally {
				this.lifecycle.exit();
			}
		}
		if (!this.lifecycle.isShuttingDown()) {
			// client-go counts every addAfter as a retry.
			this.retries.increment();
			this.metrics.retried();
		}
	}

	/**
	 * An add that raced the shutdown is ignored, as every add after it, when the store
	 * says its failure leaves the caller nothing to undo.
	 */
	private void ignoreIfShutDown(RuntimeException ex) {
		if (!this.lifecycle.isShuttingDown() || !this.driver.ignorableAtShutDown(ex)) {
			throw ex;
		}
	}

	/** Counts new adds with the hook, on the adding thread. */
	private void countAdded(long added) {
		for (long i = 0; i < added; i++) {
			this.metrics.added();
		}
	}

	/** The current trace context, or {@code null} without a source or a current span. */
	private String currentContext() {
		return (this.traceSource != null) ? this.traceSource.currentContext() : null;
	}

	/** Encodes an item, checked: not {@code null} in or out, and storable. */
	private String encode(T item) {
		Objects.requireNonNull(item, "item");
		String encoded = Objects.requireNonNull(this.codec.encode(item), "codec.encode(item)");
		this.driver.checkEncoding(encoded);
		return encoded;
	}

	@Override
	public T get() throws InterruptedException {
		return item(take(null));
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		return item(take(Objects.requireNonNull(timeout, "timeout")));
	}

	@Override
	public Prioritized<T> take(Duration timeout) throws InterruptedException {
		boolean bounded = timeout != null;
		long timeoutNanos = bounded ? Math.max(0, Nanos.of(timeout)) : 0;
		return this.taker.take(bounded, timeoutNanos, null, null, null);
	}

	private static <T> T item(Prioritized<T> taken) {
		return (taken != null) ? taken.item() : null;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Its {@code doneAndPoll} is one store call when an item is ready: the done and the
	 * next claim.
	 */
	@Override
	public Poller<T> newPoller() {
		return new SharedPoller<>(this.taker::take, this.releases::finishForNextTake, this.signal);
	}

	@Override
	public void done(T item) {
		this.releases.done(item);
	}

	@Override
	public int handBack() {
		this.taker.handBackAhead();
		return this.releases.handBackAll();
	}

	@Override
	public boolean handBack(Object item, Duration delay) {
		return this.releases.handBack(item, delay);
	}

	/** {@inheritDoc} One read of the store. */
	@Override
	public int size() {
		return read(QueueDriver::size);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One read of the store. {@code depth}, {@code processing}, {@code waiting} and
	 * {@code addedWhileProcessing} are the shared figures of every instance;
	 * {@code retries} counts this instance's {@code addAfter} calls; the two processing
	 * times cover the items this instance holds.
	 */
	@Override
	public WorkQueueStats stats() {
		Figures shared = read(QueueDriver::figures);
		long[] processing = this.book.processingNanos(this.clock.nanoTime());
		return WorkQueueStats.builder()
			.depth(shared.depth())
			.processing(shared.processing())
			.waiting(shared.waiting())
			.retries(this.retries.sum())
			.headQueuedNanos(shared.headQueuedNanos())
			.unfinishedWorkNanos(processing[0])
			.longestRunningProcessorNanos(processing[1])
			.addedWhileProcessing(shared.addedWhileProcessing())
			.build();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One read of the store. The age of a level is that of its first in line.
	 */
	@Override
	public List<Level> readyLevels() {
		return read(QueueDriver::readyLevels);
	}

	/** {@inheritDoc} One read of the store, as {@link #stats()}. */
	@Override
	public int pending() {
		return read(QueueDriver::figures).pending();
	}

	/**
	 * A read of the store, counted as a call under way: a shut-down handle still reads,
	 * and gives back what the driver uses only after.
	 */
	private <R> R read(Function<QueueDriver, R> reader) {
		this.lifecycle.enterAlways();
		try {
			return reader.apply(this.driver);
		}
		finally {
			this.lifecycle.exit();
		}
	}

	@Override
	public void shutDown() {
		this.driver.beforeShutDown();
		this.lifecycle.shutDown();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.driver.afterShutDown();
	}

	@Override
	public void shutDownWithDrain() {
		this.driver.beforeShutDown();
		// The flag first, then the wake-ups: a consumer woken sees it.
		int shutDowns = this.lifecycle.shutDownForDrain();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.driver.afterShutDown();
		this.lifecycle.awaitDrained(shutDowns, this.book::isEmpty);
	}

	@Override
	public boolean isShuttingDown() {
		return this.lifecycle.isShuttingDown();
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public boolean reportsSharedGauges() {
		return this.work.reporter() && !this.lifecycle.isShuttingDown();
	}

	@Override
	public boolean reachable() {
		return this.work.failing() == null;
	}

	/** {@inheritDoc} The store's own reason, or {@code "unreachable"}. */
	@Override
	public String failure() {
		return this.work.failure();
	}

	@Override
	public String warning() {
		return this.driver.warning();
	}

	/** {@inheritDoc} Items claimed ahead included. */
	@Override
	public int held() {
		return this.book.size();
	}

	@Override
	public long stalled() {
		return this.work.stalled();
	}

	@Override
	public long deadLettered() {
		return this.taker.deadLettered();
	}

	@Override
	public String server() {
		return this.driver.server();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Also the queue's {@link QueueInspector}, over the store's {@link InspectionDriver};
	 * the queues that wrap this handle pass the lookup on.
	 */
	@Override
	public <C> Optional<C> capability(Class<C> type) {
		Optional<C> own = PriorityHandle.super.capability(type);
		return (own.isPresent() || !type.isInstance(this.inspector)) ? own : Optional.of(type.cast(this.inspector));
	}

	/**
	 * The store's driver of this handle, for the store module's own code (its tests look
	 * at the driver's parts).
	 * @return the driver
	 */
	public QueueDriver driver() {
		return this.driver;
	}

	@Override
	public String toString() {
		return this.driver.description();
	}

}
