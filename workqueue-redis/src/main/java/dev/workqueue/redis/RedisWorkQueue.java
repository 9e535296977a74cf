package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.PriorityHandle;
import dev.workqueue.spi.SharedPriorityQueue;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.store.CallGroup;
import dev.workqueue.store.ItemTaker;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.SharedPoller;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * One instance's handle on a queue that every instance with the same key prefix and name
 * shares: the queue's operations. Built by {@link RedisWorkQueues}; rate limiting wraps
 * it as core's does ({@link dev.workqueue.WorkQueues#rateLimiting}).
 * <p>
 * <b>State.</b> All shared state lives in Redis under the keys of {@link QueueKeys}; each
 * change of it is one Lua script, atomic on the server, so client-go's rules hold across
 * instances. The handle keeps only the leases it holds ({@link LeaseBook}), renewed by
 * its {@link QueueTimer}; its consumers take items as {@link ItemTaker} and
 * {@link ItemClaims} say, and its holds end as {@link LeaseReleases} says. An item whose
 * holder stopped renewing returns to the queue, and the former holder's {@code done}
 * finds another token, or none, and changes nothing: at least once, and never two live
 * holders.
 * <p>
 * <b>Parts.</b> The builder makes the parts first, each with what it uses, and this
 * handle last: none of them calls back into it.
 * <p>
 * <b>Adds.</b> Concurrent adds of a plain queue share one script ({@link CallGroup},
 * {@link GroupedAdds}); each returns once its own item is written, and counts what it
 * added on its own thread.
 * <p>
 * <b>Happens-before.</b> Actions before {@code add(x)} in one instance happen before the
 * actions after the {@code get} that returns {@code x} in any instance only through
 * Redis: the add's script runs before the get's script on the server.
 * <p>
 * <b>Shutdown</b> is this instance's only: adds are ignored, {@code get} hands out
 * nothing more, and queued and delayed items stay in Redis for the others. The handle
 * renews what it holds until each item is done or {@linkplain #handBack() handed back},
 * then gives its connections back.
 * <p>
 * <b>Layouts.</b> The ready items are a LIST or a priority-ordered ZSET: the
 * {@link QueueLayout} picks the scripts that change them and shapes their arguments and
 * replies, and everything else (leases, fencing, parking, orphans, wake-ups, shutdown) is
 * this class's for both. The priorities this handle takes are dropped by the plain
 * layout; {@link SharedPriorityQueue} is the {@link PriorityQueue} over a handle with the
 * priority layout.
 * <p>
 * It implements the deprecated {@link SharedQueue}, and so the shared-store engine's
 * {@link dev.workqueue.store.SharedQueue}, so that lookups of either find it.
 *
 * @param <T> the item type
 */
@SuppressWarnings("deprecation")
final class RedisWorkQueue<T> implements PriorityHandle<T>, SharedQueue, PollerFactory<T> {

	private final String name;

	private final ItemCodec<T> codec;

	private final QueueScripts scripts;

	private final Clock clock;

	/** The user's hook, guarded: a hook that throws costs its call only. */
	private final WorkQueueMetrics metrics;

	private final LeaseBook<T, RedisLease> book;

	private final ReadySignal signal;

	private final HandleLifecycle lifecycle;

	private final QueueTimer timer;

	private final LeaseReleases<T, RedisLease> releases;

	private final ItemTaker<T, RedisLease> taker;

	/** The plain layout's adds, grouped across the handle's threads. */
	private final CallGroup<GroupedAdds.Add, Long> adds;

	private final LongAdder retries = new LongAdder();

	/** Where adds get their trace context, guarded; {@code null} for none. */
	private final TraceContextSource traceSource;

	RedisWorkQueue(String name, ItemCodec<T> codec, QueueScripts scripts, Clock clock, WorkQueueMetrics metrics,
			LeaseBook<T, RedisLease> book, ReadySignal signal, HandleLifecycle lifecycle, QueueTimer timer,
			LeaseReleases<T, RedisLease> releases, ItemTaker<T, RedisLease> taker,
			CallGroup<GroupedAdds.Add, Long> adds, TraceContextSource traceSource) {
		this.name = name;
		this.traceSource = traceSource;
		this.codec = codec;
		this.scripts = scripts;
		this.clock = clock;
		this.metrics = metrics;
		this.book = book;
		this.signal = signal;
		this.lifecycle = lifecycle;
		this.timer = timer;
		this.releases = releases;
		this.taker = taker;
		this.adds = adds;
	}

	@Override
	public void add(T item) {
		add(item, 0);
	}

	/**
	 * Adds an item with a priority, which the plain layout drops.
	 * @param item the item
	 * @param priority the priority
	 * @throws IllegalArgumentException if the priority is out of range, before anything
	 * reaches Redis
	 */
	@Override
	public void add(T item, int priority) {
		add(item, priority, currentContext());
	}

	/** The current trace context, or {@code null} without a source or a current span. */
	private String currentContext() {
		return (this.traceSource != null) ? this.traceSource.currentContext() : null;
	}

	private void add(T item, int priority, String context) {
		PriorityQueue.checkPriority(priority);
		String encoded = encode(item);
		if (!this.lifecycle.enter()) {
			return;
		}
		try {
			QueueLayout layout = this.scripts.layout();
			long added = layout.groupsAdds() ? this.adds.call(new GroupedAdds.Add(encoded, context))
					: layout.added(this.scripts.run(layout.add(context), layout.addArgs(encoded, priority, context)));
			// On this thread, after the group: a hook may add to this queue.
			for (long i = 0; i < added; i++) {
				this.metrics.added();
			}
		}
		catch (RedisQueueException ex) {
			ignoreIfShutDown(ex);
		}
		finally {
			this.lifecycle.exit();
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Every item is encoded before anything is sent, and every script is sent before the
	 * first answer is awaited: the layout says how many items each takes
	 * ({@link QueueLayout#addAllArgs}). Each script is atomic, and one that fails writes
	 * nothing; when the items went in several scripts and some failed, the exception (the
	 * first failure's reason) says how many items those held: the others were added.
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
			QueueLayout layout = this.scripts.layout();
			List<CompletableFuture<Long>> answers = new ArrayList<>();
			String context = currentContext();
			List<String[]> scripts = layout.addAllArgs(encoded, context);
			for (String[] args : scripts) {
				answers.add(this.scripts.send(layout.add(context), args));
			}
			long added = 0;
			int notAdded = 0;
			RedisQueueException failure = null;
			for (int i = 0; i < answers.size(); i++) {
				try {
					added += layout.added(this.scripts.answer(answers.get(i)));
				}
				catch (RedisQueueException ex) {
					failure = (failure != null) ? failure : ex;
					notAdded += layout.itemsIn(scripts.get(i), context);
				}
			}
			for (long i = 0; i < added; i++) {
				this.metrics.added();
			}
			if (failure != null && scripts.size() > 1) {
				throw new RedisQueueException(failure.reason(), failure.getMessage() + "; " + notAdded + " of the "
						+ encoded.size()
						+ " items were in the scripts that failed, which wrote nothing, and the others were added",
						failure.getCause());
			}
			if (failure != null) {
				throw failure;
			}
		}
		catch (RedisQueueException ex) {
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
	 * Adds an item with a priority, which the plain layout drops, once the delay has
	 * passed.
	 * @param item the item
	 * @param delay the delay
	 * @param priority the priority
	 * @throws IllegalArgumentException if the priority is out of range, before anything
	 * reaches Redis
	 */
	@Override
	public void addAfter(T item, Duration delay, int priority) {
		Objects.requireNonNull(delay, "delay");
		PriorityQueue.checkPriority(priority);
		long delayNanos = Nanos.of(delay);
		String context = currentContext();
		if (delayNanos <= 0) {
			add(item, priority, context);
		}
		else {
			String encoded = encode(item);
			if (!this.lifecycle.enter()) {
				return;
			}
			try {
				long nowNanos = this.scripts.now();
				QueueLayout layout = this.scripts.layout();
				this.scripts.answer(this.scripts.sendAt(nowNanos, layout.addAfter,
						layout.addAfterArgs(Delays.micros(nowNanos, delayNanos), encoded, priority, context)));
			}
			catch (RedisQueueException ex) {
				ignoreIfShutDown(ex);
				return;
			}
			finally {
				this.lifecycle.exit();
			}
		}
		if (!this.lifecycle.isShuttingDown()) {
			this.retries.increment();
			this.metrics.retried();
		}
	}

	/** An add that raced the shutdown is ignored, as every add after it. */
	private void ignoreIfShutDown(RedisQueueException ex) {
		if (!this.lifecycle.isShuttingDown()) {
			throw ex;
		}
	}

	private String encode(T item) {
		return ItemCodecs.encode(this.codec, item);
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

	/**
	 * {@inheritDoc}
	 * <p>
	 * One read of Redis, O(log n) per priority with ready items, on a handle with the
	 * priority layout. The age of a level is that of its first in line: an item raised
	 * into a level lines up at its back, so an older item raised there later does not
	 * count.
	 */
	@Override
	public List<Level> readyLevels() {
		List<Long> flat = read(LuaScript.PLEVELS);
		List<Level> levels = new ArrayList<>(flat.size() / 3);
		for (int i = 0; i + 2 < flat.size(); i += 3) {
			levels.add(new Level((int) (long) flat.get(i), (int) (long) flat.get(i + 1), flat.get(i + 2) * 1000));
		}
		return levels;
	}

	private static <T> T item(Prioritized<T> taken) {
		return (taken != null) ? taken.item() : null;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Its {@code doneAndPoll} is one round trip when an item is ready: one script ends
	 * the processing of the item done and leases the next.
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

	@Override
	public int size() {
		return (int) (long) sharedStats().get(0);
	}

	/** One read of the shared figures, counted as a call under way. */
	private List<Long> sharedStats() {
		return read(this.scripts.layout().stats);
	}

	/** Runs a read-only script, counted as a call under way. */
	<R> R read(LuaScript script) {
		this.lifecycle.enterAlways();
		try {
			return this.scripts.run(script);
		}
		finally {
			this.lifecycle.exit();
		}
	}

	@Override
	public void shutDown() {
		this.scripts.counting();
		this.lifecycle.shutDown();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.timer.wake();
	}

	@Override
	public void shutDownWithDrain() {
		// The flag first, then the wake-ups: a consumer woken sees it.
		this.scripts.counting();
		int shutDowns = this.lifecycle.shutDownForDrain();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.timer.wake();
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

	/**
	 * {@inheritDoc}
	 * <p>
	 * One read of Redis. {@code depth}, {@code processing} and {@code waiting} are the
	 * shared figures of every instance; {@code retries} counts this instance's
	 * {@code addAfter} calls; the two processing times cover the items this instance
	 * holds.
	 */
	@Override
	public WorkQueueStats stats() {
		List<Long> shared = sharedStats();
		long[] processing = this.book.processingNanos(this.clock.nanoTime());
		int ready = (int) (long) shared.get(0);
		int dirty = (int) (long) shared.get(1);
		return WorkQueueStats.builder()
			.depth(ready)
			.processing((int) (long) shared.get(2))
			.waiting((int) (long) shared.get(3))
			.retries(this.retries.sum())
			.headQueuedNanos(this.scripts.layout().oldestReadyNanos(shared))
			.unfinishedWorkNanos(processing[0])
			.longestRunningProcessorNanos(processing[1])
			.addedWhileProcessing(dirty - ready)
			.build();
	}

	@Override
	public boolean reportsSharedGauges() {
		return this.timer.reporter() && !this.lifecycle.isShuttingDown();
	}

	@Override
	public boolean reachable() {
		return this.timer.reachable();
	}

	@Override
	public int held() {
		return this.book.size();
	}

	@Override
	public long stalled() {
		return this.timer.stalled();
	}

	@Override
	public long deadLettered() {
		return this.taker.deadLettered();
	}

	@Override
	public int pending() {
		return (int) (long) sharedStats().get(1);
	}

	@Override
	public String server() {
		return this.scripts.link().server();
	}

	/** The timed work, for tests. */
	QueueTimer timer() {
		return this.timer;
	}

	@Override
	public String toString() {
		return "RedisWorkQueue[" + this.name + " at " + this.scripts.keys().queue() + "]";
	}

}
