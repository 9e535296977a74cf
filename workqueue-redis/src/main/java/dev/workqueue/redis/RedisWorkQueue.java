package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import dev.workqueue.DelayingQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The Redis queue: one instance's handle on a queue that every instance with the same key
 * prefix and name shares. Built by {@link RedisWorkQueues}, as a {@link DelayingQueue},
 * or as a {@link RateLimitingQueue} when given a rate limiter: {@code addRateLimited} is
 * then {@code addAfter(item, limiter.when(item))}, as in client-go, and the limiter
 * decides where failure counts and tokens live (in this JVM, or in Redis with
 * {@link RedisRateLimiters}).
 * <p>
 * <b>State.</b> All shared state lives in Redis under the keys of {@link QueueKeys}, and
 * each change of it is one Lua script, so it is atomic on the server and client-go's
 * rules hold across instances: an item is queued at most once while it waits
 * ({@code dirty}), an item added while any instance processes it is queued again by that
 * instance's {@code done}, {@code addAfter} keeps the earlier ready time, and the ready
 * list is FIFO. The instance keeps only the items it holds ({@link #held}: item → lease).
 * <p>
 * <b>Leases.</b> {@code get} leases the item to a fencing token that the server counts
 * up. This instance renews the leases it holds every third of the lease; an item whose
 * lease runs out (its holder crashed, paused or lost the network) is handed back to the
 * ready list by whichever instance's tick sees it first, and the former holder's
 * {@code done} or renewal then finds another token, or none, and changes nothing. So an
 * item is processed at least once, and never by two live lease holders at once.
 * <p>
 * <b>Threads.</b> Consumers never block a Redis connection: {@code get} runs the lease
 * script and, when nothing is ready, waits on {@link #readyOrShutDown} until a notice
 * arrives. The notices come on a pub/sub connection ({@code r}: an item was queued;
 * {@code w}: a delayed item became the first due), on the client's event loop, which only
 * bumps {@link #epoch} and signals. One daemon thread, {@code workqueue-<name>-redis},
 * owns the timed work: it runs the tick script (due delayed items into the ready list,
 * expired leases back to it), renews this instance's leases, and sleeps on the
 * {@link Clock} until the next due time, lease expiry or renewal, at most the heartbeat.
 * An idle queue costs one script per heartbeat. Failures (Redis unreachable) never end
 * the thread: it logs once per outage, backs off up to the heartbeat, and resumes.
 * <p>
 * <b>Happens-before.</b> Actions before {@code add(x)} in one instance happen before the
 * actions after the {@code get} that returns {@code x} in any instance only through
 * Redis: the add's script runs before the get's script on the server. No memory is
 * shared.
 * <p>
 * <b>Shutdown</b> is this instance's only: it stops taking items ({@code get} returns
 * {@code null} at once) and leaves queued and delayed items in Redis for the others. Its
 * thread keeps renewing the leases it holds until they are done or
 * {@linkplain #handBack() handed back}.
 *
 * @param <T> the item type
 */
final class RedisWorkQueue<T> implements RateLimitingQueue<T>, SharedQueue {

	private static final System.Logger logger = System.getLogger(RedisWorkQueue.class.getName());

	/** Most due items, and most expired leases, one tick moves. */
	static final int BATCH = 500;

	/** Most leases one renewal script extends. */
	private static final int RENEW_BATCH = 256;

	/** First backoff of the thread after a failure; it doubles up to the heartbeat. */
	private static final long MIN_BACKOFF_NANOS = 50_000_000L;

	private final String name;

	private final QueueKeys keys;

	private final ItemCodec<T> codec;

	private final RedisConnector redis;

	/** Measures local waits; also the scripts' time unless {@link #serverTime}. */
	private final Clock clock;

	private final boolean serverTime;

	private final String leaseMicros;

	private final long renewIntervalNanos;

	private final long heartbeatNanos;

	private final WorkQueueMetrics metrics;

	/** {@code null} unless built as a rate-limiting queue. */
	private final RateLimiter<? super T> limiter;

	private final Map<T, Lease> held = new ConcurrentHashMap<>();

	/** Calls of {@code done} and {@code handBack} under way. */
	private final AtomicInteger releasing = new AtomicInteger();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition readyOrShutDown = this.lock.newCondition();

	private final Condition tickerWakeUp = this.lock.newCondition();

	private final Condition nothingHeld = this.lock.newCondition();

	/** Notices received; a consumer waits only while it is unchanged. Guarded by lock. */
	private long epoch;

	/**
	 * The {@link #epoch} at which a consumer last found nothing ready. Guarded by lock.
	 */
	private long emptyAtEpoch = -1;

	/** Whether a notice asked the thread for a tick. Guarded by lock. */
	private boolean tickRequested;

	private volatile boolean shuttingDown;

	private final LongAdder retries = new LongAdder();

	private final LongAdder stalled = new LongAdder();

	private final LongAdder deadLettered = new LongAdder();

	private final AtomicBoolean outage = new AtomicBoolean();

	/** Owned by the thread. */
	private StatefulRedisPubSubConnection<String, String> pubSub;

	private final Thread thread;

	/** This handle's id, for the reporter role. */
	private final String id = UUID.randomUUID().toString();

	/** How long the reporter role outlives its last renewal: three heartbeats. */
	private final String reporterMillis;

	/** Whether this handle reported the shared gauges at its last tick. */
	private volatile boolean reporter;

	RedisWorkQueue(String name, QueueKeys keys, ItemCodec<T> codec, RedisConnector redis, Clock clock,
			boolean serverTime, Duration lease, Duration heartbeat, WorkQueueMetrics metrics,
			RateLimiter<? super T> limiter) {
		this.name = name;
		this.keys = keys;
		this.codec = codec;
		this.redis = redis;
		this.clock = clock;
		this.serverTime = serverTime;
		this.leaseMicros = Long.toString(Nanos.of(lease) / 1000);
		this.renewIntervalNanos = Nanos.of(lease) / 3;
		this.heartbeatNanos = Nanos.of(heartbeat);
		this.reporterMillis = Long.toString(Math.max(1, 3 * heartbeat.toMillis()));
		this.metrics = metrics;
		this.limiter = limiter;
		this.thread = new Thread(this::run, "workqueue-" + name + "-redis");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	@Override
	public void add(T item) {
		String encoded = encode(item);
		if (this.shuttingDown) {
			return;
		}
		long added = this.redis.run(LuaScript.ADD, ScriptOutputType.INTEGER, this.keys, now(), this.keys.channel(),
				encoded);
		if (added > 0) {
			record(WorkQueueMetrics::added);
		}
	}

	@Override
	public void addAfter(T item, Duration delay) {
		Objects.requireNonNull(delay, "delay");
		long delayNanos = Nanos.of(delay);
		if (delayNanos <= 0) {
			add(item);
		}
		else {
			String encoded = encode(item);
			if (this.shuttingDown) {
				return;
			}
			// Rounded up: never ready before the delay has passed.
			long delayMicros = (delayNanos + 999) / 1000;
			this.redis.run(LuaScript.ADD_AFTER, ScriptOutputType.INTEGER, this.keys, now(), this.keys.channel(),
					Long.toString(delayMicros), encoded);
		}
		if (!this.shuttingDown) {
			this.retries.increment();
			record(WorkQueueMetrics::retried);
		}
	}

	@Override
	public void addRateLimited(T item) {
		Objects.requireNonNull(item, "item");
		if (!this.shuttingDown) {
			addAfter(item, limiter().when(item));
		}
	}

	@Override
	public void forget(T item) {
		limiter().forget(Objects.requireNonNull(item, "item"));
	}

	@Override
	public int numRequeues(T item) {
		return limiter().numRequeues(Objects.requireNonNull(item, "item"));
	}

	private RateLimiter<? super T> limiter() {
		if (this.limiter == null) {
			throw new IllegalStateException("Queue '" + this.name + "' was built without a rate limiter: "
					+ "use RedisWorkQueues.Builder.buildRateLimitingQueue");
		}
		return this.limiter;
	}

	private String encode(T item) {
		Objects.requireNonNull(item, "item");
		return Objects.requireNonNull(this.codec.encode(item), "codec.encode(item)");
	}

	@Override
	public T get() throws InterruptedException {
		return take(false, 0);
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return take(true, Math.max(0, Nanos.of(timeout)));
	}

	private T take(boolean bounded, long timeoutNanos) throws InterruptedException {
		long deadlineNanos = bounded ? Nanos.add(this.clock.nanoTime(), timeoutNanos) : 0;
		while (!this.shuttingDown) {
			long seen;
			boolean knownEmpty;
			this.lock.lock();
			try {
				seen = this.epoch;
				// A poll without a wait always asks Redis; a waiting consumer does not
				// when another found the list empty and no notice came since.
				knownEmpty = seen == this.emptyAtEpoch && (!bounded || timeoutNanos > 0);
			}
			finally {
				this.lock.unlock();
			}
			if (!knownEmpty) {
				List<Object> leased = this.redis.run(LuaScript.GET, ScriptOutputType.MULTI, this.keys, now(),
						this.keys.channel(), this.leaseMicros);
				if (!leased.isEmpty()) {
					T item = accept(leased);
					if (item != null) {
						return item;
					}
					continue;
				}
				markEmpty(seen);
			}
			if (!awaitNotice(seen, bounded, deadlineNanos)) {
				return null;
			}
		}
		return null;
	}

	/** Takes a leased item in hand; {@code null} if it could not be decoded. */
	private T accept(List<Object> leased) {
		String encoded = (String) leased.get(0);
		String token = String.valueOf(leased.get(1));
		long queuedMicros = (Long) leased.get(2);
		if ((Long) leased.get(3) > 0) {
			// More are ready: pass the notice on to another waiting consumer.
			signalConsumers();
		}
		T item;
		try {
			item = this.codec.decode(encoded);
			Objects.requireNonNull(item, "decoded item");
		}
		catch (RuntimeException ex) {
			deadLetter(encoded, token, ex);
			return null;
		}
		this.held.put(item, new Lease(encoded, token, this.clock.nanoTime()));
		record((metrics) -> metrics.handedOut(queuedMicros * 1000));
		return item;
	}

	private void deadLetter(String encoded, String token, RuntimeException cause) {
		this.deadLettered.increment();
		logger.log(Level.WARNING, "Queue '" + this.name + "' moved a payload of " + encoded.length()
				+ " characters that its codec cannot decode to " + this.keys.dead(), cause);
		this.redis.run(LuaScript.DEAD_LETTER, ScriptOutputType.INTEGER, this.keys, now(), this.keys.channel(), encoded,
				token, DeadLetter.record(encoded, cause, this.redis.server()));
	}

	/**
	 * Waits for a notice newer than {@code seen}; returns {@code false} on timeout or
	 * shutdown.
	 */
	private boolean awaitNotice(long seen, boolean bounded, long deadlineNanos) throws InterruptedException {
		this.lock.lock();
		try {
			while (this.epoch == seen) {
				if (this.shuttingDown || (bounded && this.clock.nanoTime() >= deadlineNanos)) {
					return false;
				}
				if (bounded) {
					this.clock.awaitUntil(this.lock, this.readyOrShutDown, deadlineNanos);
				}
				else {
					this.readyOrShutDown.await();
				}
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Records that the ready list was empty at notice {@code seen}: until the next notice
	 * (sent when the list stops being empty), other consumers wait without asking Redis,
	 * so many idle consumers cost one script, not one each.
	 */
	private void markEmpty(long seen) {
		this.lock.lock();
		try {
			if (this.epoch == seen) {
				this.emptyAtEpoch = seen;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void done(T item) {
		Objects.requireNonNull(item, "item");
		// Counted before the item leaves held: the thread, which closes the connection
		// once shut down with nothing held, waits for this script too.
		this.releasing.incrementAndGet();
		try {
			Lease lease = this.held.remove(item);
			if (lease == null) {
				return;
			}
			long workNanos = this.clock.nanoTime() - lease.startedNanos();
			record((metrics) -> metrics.done(workNanos));
			// If this fails, the lease is no longer renewed: it runs out and the item
			// comes back, at least once.
			long answer = this.redis.run(LuaScript.DONE, ScriptOutputType.INTEGER, this.keys, now(),
					this.keys.channel(), lease.encoded(), lease.token());
			if (answer == 0) {
				logger.log(Level.DEBUG, () -> "Queue '" + this.name + "': done of an item whose lease had run out");
			}
		}
		finally {
			this.releasing.decrementAndGet();
			signalIfNothingHeld();
		}
	}

	@Override
	public int size() {
		return (int) (long) stats5().get(0);
	}

	private List<Long> stats5() {
		return this.redis.run(LuaScript.STATS, ScriptOutputType.MULTI, this.keys, now(), this.keys.channel());
	}

	@Override
	public void shutDown() {
		this.lock.lock();
		try {
			this.shuttingDown = true;
			this.readyOrShutDown.signalAll();
			this.tickerWakeUp.signalAll();
			this.nothingHeld.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void shutDownWithDrain() {
		shutDown();
		this.lock.lock();
		try {
			while (!this.held.isEmpty()) {
				this.nothingHeld.await();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public int handBack() {
		this.releasing.incrementAndGet();
		try {
			int handedBack = 0;
			for (Map.Entry<T, Lease> entry : this.held.entrySet()) {
				Lease lease = entry.getValue();
				if (this.held.remove(entry.getKey(), lease)) {
					this.redis.run(LuaScript.RELEASE, ScriptOutputType.INTEGER, this.keys, now(), this.keys.channel(),
							lease.encoded(), lease.token(), "0");
					handedBack++;
				}
			}
			return handedBack;
		}
		finally {
			this.releasing.decrementAndGet();
			signalIfNothingHeld();
		}
	}

	@Override
	public boolean handBack(Object item, Duration delay) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		this.releasing.incrementAndGet();
		try {
			@SuppressWarnings("unchecked")
			Lease lease = this.held.remove((T) item);
			if (lease == null) {
				return false;
			}
			this.redis.run(LuaScript.RELEASE, ScriptOutputType.INTEGER, this.keys, now(), this.keys.channel(),
					lease.encoded(), lease.token(), Long.toString(Math.max(0, Nanos.of(delay)) / 1000));
			return true;
		}
		finally {
			this.releasing.decrementAndGet();
			signalIfNothingHeld();
		}
	}

	@Override
	public boolean reachable() {
		return !this.outage.get();
	}

	/** Whether the thread has work: not shut down, or leases to renew or release. */
	private boolean hasWork() {
		return !this.shuttingDown || !this.held.isEmpty() || this.releasing.get() > 0;
	}

	private void signalIfNothingHeld() {
		if (this.held.isEmpty()) {
			this.lock.lock();
			try {
				this.nothingHeld.signalAll();
				// The thread may end once shut down and nothing is held.
				this.tickerWakeUp.signalAll();
			}
			finally {
				this.lock.unlock();
			}
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

	/**
	 * {@inheritDoc}
	 * <p>
	 * {@code depth}, {@code processing} and {@code waiting} are the shared figures of
	 * every instance; {@code retries} counts this instance's {@code addAfter} calls; the
	 * two processing times cover the items this instance holds.
	 */
	@Override
	public WorkQueueStats stats() {
		List<Long> shared = stats5();
		long nowNanos = this.clock.nanoTime();
		long unfinished = 0;
		long longest = 0;
		for (Lease lease : this.held.values()) {
			long age = nowNanos - lease.startedNanos();
			unfinished += age;
			longest = Math.max(longest, age);
		}
		int ready = (int) (long) shared.get(0);
		int dirty = (int) (long) shared.get(1);
		return new WorkQueueStats(ready, (int) (long) shared.get(2), (int) (long) shared.get(3), this.retries.sum(), 0,
				unfinished, longest, dirty - ready);
	}

	@Override
	public boolean reportsSharedGauges() {
		return this.reporter && !this.shuttingDown;
	}

	@Override
	public int held() {
		return this.held.size();
	}

	@Override
	public long stalled() {
		return this.stalled.sum();
	}

	@Override
	public long deadLettered() {
		return this.deadLettered.sum();
	}

	@Override
	public int depth() {
		return (int) (long) stats5().get(1);
	}

	@Override
	public String server() {
		return this.redis.server();
	}

	/** The thread, for tests. */
	Thread thread() {
		return this.thread;
	}

	private String now() {
		return this.serverTime ? "" : now(this.clock.nanoTime());
	}

	/** The scripts' time argument for a reading of the clock ("": the server's). */
	private String now(long nowNanos) {
		return this.serverTime ? "" : Long.toString(nowNanos / 1000);
	}

	/** Called on the client's event loop for each notice: must not block. */
	private void onNotice(String notice) {
		this.lock.lock();
		try {
			this.epoch++;
			if ("w".equals(notice)) {
				this.tickRequested = true;
				this.tickerWakeUp.signal();
			}
			else {
				this.readyOrShutDown.signal();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void signalConsumers() {
		this.lock.lock();
		try {
			this.epoch++;
			this.readyOrShutDown.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The thread: ticks, renews, sleeps; ends once shut down with nothing held. */
	private void run() {
		long renewAtNanos = Nanos.add(this.clock.nanoTime(), this.renewIntervalNanos);
		int failures = 0;
		while (hasWork()) {
			// Every wake-up time counts from the reading the scripts used: a clock that
			// moved during a script must not push the next wake-up past a due time.
			long nowNanos = this.clock.nanoTime();
			long wakeAtNanos;
			try {
				if (nowNanos >= renewAtNanos) {
					renewLeases();
					renewAtNanos = Nanos.add(nowNanos, this.renewIntervalNanos);
				}
				wakeAtNanos = this.shuttingDown ? renewAtNanos : Math.min(tick(nowNanos), renewAtNanos);
				if (failures > 0 && this.outage.compareAndSet(true, false)) {
					logger.log(Level.INFO, "Queue '" + this.name + "' reaches Redis at " + server() + " again");
				}
				failures = 0;
			}
			catch (RuntimeException | LinkageError | StackOverflowError ex) {
				failures++;
				if (this.outage.compareAndSet(false, true)) {
					logger.log(Level.WARNING,
							"Queue '" + this.name + "' cannot reach Redis; retrying with backoff until it answers", ex);
				}
				wakeAtNanos = Nanos.add(nowNanos,
						Math.min(this.heartbeatNanos, MIN_BACKOFF_NANOS << Math.min(failures - 1, 10)));
			}
			sleepUntil(wakeAtNanos);
		}
		resign();
		closePubSub();
		this.redis.close();
	}

	/**
	 * One tick at {@code nowNanos}; returns when the next is due, on the clock.
	 */
	private long tick(long nowNanos) {
		if (this.pubSub == null && !this.shuttingDown) {
			this.pubSub = this.redis.subscribe(this.keys.channel(), this::onNotice);
			this.redis.checkTypes(this.keys);
			// Notices sent before the subscription are lost: look once now.
			signalConsumers();
		}
		List<Long> result = this.redis.run(LuaScript.TICK, ScriptOutputType.MULTI, this.keys, now(nowNanos),
				this.keys.channel(), Integer.toString(BATCH), this.id, this.reporterMillis);
		this.reporter = result.get(5) == 1;
		long moved = result.get(0);
		long reaped = result.get(1);
		if (reaped > 0) {
			this.stalled.add(reaped);
			for (long i = 0; i < reaped; i++) {
				record(WorkQueueMetrics::stalled);
			}
			logger.log(Level.WARNING, "Queue '" + this.name + "' handed back " + reaped
					+ " item(s) whose lease ran out before their holder was done");
		}
		if (result.get(4) > 0) {
			// Insurance against a lost notice: someone should look.
			signalConsumers();
		}
		if (moved == BATCH || reaped == BATCH) {
			return nowNanos;
		}
		long sleepNanos = this.heartbeatNanos;
		for (int i = 2; i <= 3; i++) {
			long micros = result.get(i);
			if (micros >= 0) {
				sleepNanos = Math.min(sleepNanos, micros * 1000);
			}
		}
		return Nanos.add(nowNanos, sleepNanos);
	}

	private void renewLeases() {
		List<Map.Entry<T, Lease>> entries = new ArrayList<>(this.held.entrySet());
		for (int from = 0; from < entries.size(); from += RENEW_BATCH) {
			List<Map.Entry<T, Lease>> batch = entries.subList(from, Math.min(entries.size(), from + RENEW_BATCH));
			String[] args = new String[3 + 2 * batch.size()];
			args[0] = now();
			args[1] = this.keys.channel();
			args[2] = this.leaseMicros;
			for (int i = 0; i < batch.size(); i++) {
				args[3 + 2 * i] = batch.get(i).getValue().encoded();
				args[4 + 2 * i] = batch.get(i).getValue().token();
			}
			List<String> lost = this.redis.run(LuaScript.RENEW, ScriptOutputType.MULTI, this.keys, args);
			if (!lost.isEmpty()) {
				forgetLost(batch, new HashSet<>(lost));
			}
		}
	}

	private void forgetLost(List<Map.Entry<T, Lease>> batch, Set<String> lost) {
		for (Map.Entry<T, Lease> entry : batch) {
			if (lost.contains(entry.getValue().encoded()) && this.held.remove(entry.getKey(), entry.getValue())) {
				logger.log(Level.WARNING, "Queue '" + this.name + "' lost the lease of an item of "
						+ entry.getKey().getClass().getName() + "; another instance may process it now");
			}
		}
		signalIfNothingHeld();
	}

	private void sleepUntil(long deadlineNanos) {
		this.lock.lock();
		try {
			while (!this.tickRequested && this.clock.nanoTime() < deadlineNanos && hasWork()) {
				this.clock.awaitUntil(this.lock, this.tickerWakeUp, deadlineNanos);
			}
			this.tickRequested = false;
		}
		catch (InterruptedException ex) {
			// Only shutDown ends this thread; an interrupt from elsewhere just wakes it.
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Gives up the reporter role, best effort: it lapses anyway. */
	private void resign() {
		try {
			this.redis.run(LuaScript.RESIGN, ScriptOutputType.INTEGER, this.keys, now(), this.keys.channel(), this.id);
		}
		catch (RuntimeException ex) {
			logger.log(Level.DEBUG, "Queue '" + this.name + "' could not give up its reporter role", ex);
		}
	}

	private void closePubSub() {
		if (this.pubSub != null) {
			if (this.pubSub.isOpen()) {
				this.pubSub.closeAsync();
			}
			this.pubSub = null;
		}
	}

	/** Calls a metrics hook; a hook that throws costs that call only. */
	private void record(Consumer<WorkQueueMetrics> hook) {
		try {
			hook.accept(this.metrics);
		}
		catch (Throwable ex) {
			logger.log(Level.DEBUG, "A metrics hook of queue '" + this.name + "' threw", ex);
		}
	}

	@Override
	public String toString() {
		return "RedisQueue[" + this.name + " at " + this.keys.queue()
				+ ((this.limiter != null) ? ", limited by " + this.limiter : "") + "]";
	}

	/**
	 * An item this instance holds.
	 *
	 * @param encoded its identity in Redis
	 * @param token its fencing token
	 * @param startedNanos when it was handed out, on the clock
	 */
	private record Lease(String encoded, String token, long startedNanos) {

	}

}
