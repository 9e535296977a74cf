package dev.workqueue.redis;

import dev.workqueue.ItemCodec;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WakeablePolls;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.redis.LeaseBook.Lease;
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
 * its {@link QueueTimer}; its consumers wait as {@link ItemTaker} says. An item whose
 * holder stopped renewing returns to the queue, and the former holder's {@code done}
 * finds another token, or none, and changes nothing: at least once, and never two live
 * holders.
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
 * <b>Layouts.</b> The ready items are a LIST here and a priority-ordered ZSET in the
 * {@link RedisPriorityQueue} subclass: the {@link QueueLayout} picks the scripts that
 * change them, and everything else (leases, fencing, parking, orphans, wake-ups,
 * shutdown) is this class's for both.
 *
 * @param <T> the item type
 */
class RedisWorkQueue<T> implements DelayingQueue<T>, SharedQueue, WakeablePolls<T> {

	private static final System.Logger logger = System.getLogger(RedisWorkQueue.class.getName());

	/** The most items one add script takes. */
	static final int ADD_BATCH = 1_000;

	private final String name;

	private final ItemCodec<T> codec;

	private final QueueScripts scripts;

	private final Clock clock;

	private final WorkQueueMetrics metrics;

	/** Whether the hook takes the durations; if not, nobody measures them. */
	private final boolean recordsDurations;

	private final LeaseBook<T> book;

	private final ReadySignal signal;

	private final Lifecycle lifecycle = new Lifecycle(this::wakeTimer);

	private final QueueTimer timer;

	private final LongAdder retries = new LongAdder();

	private final ItemTaker<T> taker;

	private final LeaseReleases<T> releases;

	RedisWorkQueue(String name, ItemCodec<T> codec, QueueScripts scripts, Clock clock, Duration lease,
			Duration heartbeat, WorkQueueMetrics metrics, String id, Duration starvationTimeout) {
		this.name = name;
		this.codec = codec;
		this.scripts = scripts;
		this.clock = clock;
		this.metrics = metrics;
		this.recordsDurations = metrics.recordsDurations();
		this.book = new LeaseBook<>(id);
		this.signal = new ReadySignal(clock);
		this.timer = new QueueTimer(scripts, this, this.book, this.lifecycle, this.signal, clock, id, lease, heartbeat);
		this.releases = new LeaseReleases<>(this, scripts, this.book, this.lifecycle, clock);
		this.taker = new ItemTaker<>(this, codec, scripts, this.book, this.releases, this.signal, this.lifecycle, clock,
				lease, starvationTimeout);
	}

	/** Checks the keys and permissions, then starts the handle's timed work. */
	void start() {
		this.timer.start();
	}

	@Override
	public void add(T item) {
		add(item, 0);
	}

	/**
	 * Adds an item with a priority (ignored by the plain layout).
	 * @param item the item
	 * @param priority the priority
	 * @throws IllegalArgumentException if the priority is out of range, before anything
	 * reaches Redis
	 */
	public void add(T item, int priority) {
		PriorityQueue.checkPriority(priority);
		String encoded = encode(item);
		if (!this.lifecycle.enter()) {
			return;
		}
		try {
			long added = this.scripts.run(this.scripts.layout().add, withPriority(priority, encoded));
			if (added > 0) {
				record(WorkQueueMetrics::added);
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
	 * Every item is encoded before anything is sent. A plain queue adds up to
	 * {@value #ADD_BATCH} items per script; a priority queue (each item at priority 0)
	 * sends every add before it waits for the first answer, so that the shared connection
	 * pipelines them.
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
			List<CompletableFuture<Long>> answers = new ArrayList<>();
			QueueLayout layout = this.scripts.layout();
			if (layout == QueueLayout.PRIORITY) {
				for (String one : encoded) {
					answers.add(this.scripts.send(layout.add, one, "0"));
				}
			}
			else {
				for (int from = 0; from < encoded.size(); from += ADD_BATCH) {
					List<String> batch = encoded.subList(from, Math.min(encoded.size(), from + ADD_BATCH));
					answers.add(this.scripts.send(layout.add, batch.toArray(new String[0])));
				}
			}
			long added = 0;
			for (CompletableFuture<Long> answer : answers) {
				long reply = this.scripts.answer(answer);
				added += (layout == QueueLayout.PRIORITY) ? Math.min(reply, 1) : reply;
			}
			for (long i = 0; i < added; i++) {
				record(WorkQueueMetrics::added);
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
	 * Adds an item with a priority (ignored by the plain layout) once the delay has
	 * passed.
	 * @param item the item
	 * @param delay the delay
	 * @param priority the priority
	 * @throws IllegalArgumentException if the priority is out of range, before anything
	 * reaches Redis
	 */
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
				long nowNanos = this.scripts.now();
				this.scripts.answer(this.scripts.sendAt(nowNanos, this.scripts.layout().addAfter,
						withPriority(priority, Long.toString(Delays.micros(nowNanos, delayNanos)), encoded)));
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
			record(WorkQueueMetrics::retried);
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

	/** The arguments of a script, with the priority last in the priority layout. */
	private String[] withPriority(int priority, String... args) {
		if (this.scripts.layout() != QueueLayout.PRIORITY) {
			return args;
		}
		String[] all = Arrays.copyOf(args, args.length + 1);
		all[args.length] = Integer.toString(priority);
		return all;
	}

	@Override
	public T get() throws InterruptedException {
		return item(takeWithPriority(false, null, ItemTaker.NOT_WAKEABLE));
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		return item(takeWithPriority(true, timeout, ItemTaker.NOT_WAKEABLE));
	}

	/**
	 * Takes the next item with the priority it is handed out with (0 on a plain queue).
	 * @param bounded whether to wait at most {@code timeout}
	 * @param timeout how long to wait when bounded
	 * @param epoch the poll epoch, or {@link ItemTaker#NOT_WAKEABLE}
	 * @return the item and its priority, or {@code null}
	 */
	Prioritized<T> takeWithPriority(boolean bounded, Duration timeout, long epoch) throws InterruptedException {
		long timeoutNanos = bounded ? Math.max(0, Nanos.of(Objects.requireNonNull(timeout, "timeout"))) : 0;
		return this.taker.take(bounded, timeoutNanos, epoch, null);
	}

	private static <T> T item(Prioritized<T> taken) {
		return (taken != null) ? taken.item() : null;
	}

	@Override
	public long pollEpoch() {
		return this.signal.pollEpoch();
	}

	@Override
	public T pollUnlessWoken(Duration timeout, long epoch) throws InterruptedException {
		return item(takeWithPriority(true, timeout, epoch));
	}

	@Override
	public Prioritized<T> pollWithPriorityUnlessWoken(Duration timeout, long epoch) throws InterruptedException {
		return takeWithPriority(true, timeout, epoch);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One round trip when an item is ready: one script ends the processing of
	 * {@code done} and leases the next item.
	 */
	@Override
	public Prioritized<T> doneAndPoll(T done, Duration timeout, long epoch) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		Lease lease = this.releases.finishForNextGet(done);
		return this.taker.take(true, Math.max(0, Nanos.of(timeout)), epoch, lease);
	}

	@Override
	public void wakePolls() {
		this.signal.wakePolls();
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

	/**
	 * Hands a lease back; if that fails, the timer hands it back later.
	 * @throws RedisQueueException the failure, once the lease is remembered
	 */
	void releaseOrOrphan(String encoded, String token, long delayNanos) {
		this.releases.releaseOrOrphan(encoded, token, delayNanos);
	}

	@Override
	public int size() {
		return (int) (long) sharedStats().get(0);
	}

	/** One read of the shared figures, counted as a call under way. */
	List<Long> sharedStats() {
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
		this.lifecycle.shutDown();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.timer.wake();
	}

	@Override
	public void shutDownWithDrain() {
		// The flag first, then the wake-ups: a consumer woken sees it.
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
		// The priority layout tells how long the oldest ready item has been ready.
		long oldestReadyNanos = (shared.size() > 5) ? shared.get(5) * 1000 : 0;
		return new WorkQueueStats(ready, (int) (long) shared.get(2), (int) (long) shared.get(3), this.retries.sum(),
				oldestReadyNanos, processing[0], processing[1], dirty - ready);
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
	public int depth() {
		return (int) (long) sharedStats().get(1);
	}

	@Override
	public String server() {
		return this.scripts.link().server();
	}

	void wakeTimer() {
		this.timer.wake();
	}

	/** The timed work, for tests. */
	QueueTimer timer() {
		return this.timer;
	}

	/**
	 * Whether the metrics hook takes the queue and work durations: when not, they are
	 * neither measured nor {@linkplain #record recorded}.
	 */
	boolean recordsDurations() {
		return this.recordsDurations;
	}

	/** Calls a metrics hook; a hook that throws costs that call only. */
	void record(Consumer<WorkQueueMetrics> hook) {
		try {
			hook.accept(this.metrics);
		}
		catch (Throwable ex) {
			logger.log(Level.DEBUG, "A metrics hook of queue '" + this.name + "' threw", ex);
		}
	}

	@Override
	public String toString() {
		return "RedisQueue[" + this.name + " at " + this.scripts.keys().queue() + "]";
	}

}
