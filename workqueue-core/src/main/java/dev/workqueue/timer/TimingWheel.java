package dev.workqueue.timer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

import dev.workqueue.internal.ItemTable;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * A timing wheel: many keyed timers, each handing its key and value to one
 * {@code execute} function when its delay has passed, set, moved and removed in constant
 * time (go-zero's {@code TimingWheel}, for caches that expire keys and similar work).
 * <p>
 * <b>Contract.</b> A timer fires once, never before its delay has passed on the wheel's
 * {@link Clock}, and at most one {@code interval} after it plus the time to wake a
 * thread; a delay {@code <= 0} fires as soon as possible. Any delay works, however many
 * revolutions of {@code interval * numSlots} it spans. {@link #setTimer} replaces the
 * value and delay of a key's pending timer; {@link #moveTimer} reschedules one from now;
 * both, and {@link #removeTimer}, take effect at once: {@link #size()} reflects them when
 * they return, and a timer leaves {@code size()} before {@code execute} runs for it.
 * After a pause (a long GC, a {@code FakeClock} step) every timer that became due fires,
 * in due-time order. {@code execute} runs on an {@link Executor}, by default one daemon
 * thread per wheel named {@code workqueue-timer-<n>-execute} that runs the timers one at
 * a time in due-time order; an exception it throws is logged (through
 * {@link System.Logger}) and stops nothing.
 * <p>
 * <b>Thread-safety.</b> Every method may be called from any thread, including from
 * {@code execute}. Callers never hand work to the wheel's thread and wait for it (as
 * go-zero's unbuffered channels make them): one {@link ReentrantLock} guards the key
 * table, the slots and {@code sleepUntilTick}; callers link and unlink their entries
 * under it in O(1). The wheel's thread, {@code workqueue-timer-<n>-wheel}, is the only
 * one that advances time and takes due timers out; it holds the lock for one tick's due
 * timers or 4096 cascading ones at a time, never while {@code execute} runs or while it
 * waits. This departs from the one-owner-thread rule for timed structures on purpose:
 * handing every call to the owner would need a queue node per call and a second index,
 * breaking the memory budget below, while the lock costs an uncontended acquire per call.
 * <p>
 * <b>How it works.</b> Time is cut into ticks of {@code interval}; a timer belongs to the
 * first tick boundary at or after its due time, which is why it is never early and at
 * most one interval late. Level 0 of the wheel has {@code numSlots} slots of one tick;
 * timers further away go to overflow wheels of 64 slots, each slot as long as a whole
 * revolution of the level below, created on demand (Varghese &amp; Lauck's hierarchical
 * wheels, with overflow levels as in Kafka's {@code TimingWheel}). When time reaches an
 * upper slot its timers move down, at most once per level. Unlike go-zero, the position
 * of a timer is computed from absolute ticks, so a delay that lands on the current slot
 * never waits an extra revolution, and moving a timer relinks the same entry, so it
 * cannot fire twice. Unlike go-zero and Netty, the wheel does not tick while idle: its
 * thread sleeps through {@link Clock#awaitUntil} until the first occupied slot (found
 * through a bitmap of occupied slots per level) or until a caller sets an earlier timer,
 * and, when it wakes late, it walks every tick it missed in order.
 * <p>
 * <b>Cost.</b> Per pending timer, with compressed oops: one 48-byte entry that is both
 * the hash-table node (keeping its key's hash) and the slot-list node, plus 5.3 to 10.7
 * bytes of hash-table bucket array (8.4 at a million timers, whose table has
 * 2<sup>21</sup> buckets): about 56 bytes, not counting the key and value objects
 * themselves. Fixed: 40 bytes per level-0 slot and about 3 KB per overflow level. Set,
 * move and remove: one hash lookup and a few pointer writes under the lock, plus one
 * {@link Clock#nanoTime()} read. Firing: O(levels) per timer, plus one
 * {@link Executor#execute} call per tick that has due timers.
 * <p>
 * <b>Limits.</b> Values and keys must not be {@code null}; keys need {@code equals} and
 * {@code hashCode}. The hash table's bucket array only grows; {@link #drain} releases it.
 * Timers of the same tick form one batch: with a custom multi-threaded {@link Executor},
 * batches may run concurrently and out of order.
 * <p>
 * <b>After {@link #stop()}</b> (or {@link #close()}): no pending timer fires any more;
 * timers already due and taken out to fire are not pending (they left {@code size()}) and
 * still fire, once, so that stopping and then draining loses none; {@code setTimer} and
 * {@code moveTimer} throw {@link IllegalStateException}; the wheel's thread ends and the
 * default executor's thread ends, while a caller's executor is left running. Pending
 * timers are kept: {@code size()} counts them and {@link #drain} hands them out, so they
 * can be saved without racing the wheel.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class TimingWheel<K, V> implements AutoCloseable {

	private static final System.Logger logger = System.getLogger(TimingWheel.class.getName());

	private static final AtomicInteger wheelNumbers = new AtomicInteger();

	/** The shortest tick accepted, as Netty's {@code HashedWheelTimer}: 1 ms. */
	private static final long MIN_INTERVAL_NANOS = 1_000_000;

	/** {@link #sleepUntilTick} while the wheel's thread is not waiting. */
	private static final long AWAKE = Long.MIN_VALUE;

	private final Clock clock;

	/** Clock reading at construction; the wheel counts time from here. */
	private final long originNanos;

	private final long intervalNanos;

	private final BiConsumer<K, V> execute;

	private final Executor executor;

	/** The default executor, owned and shut down by this wheel; else {@code null}. */
	private final ExecutorService ownedExecutor;

	private final ReentrantLock lock = new ReentrantLock();

	/**
	 * Signalled for a timer due before the wheel's thread planned to wake, and on stop.
	 */
	private final Condition wakeUp = this.lock.newCondition();

	/** Keeps its array while timers are removed (see Limits); drain releases it. */
	private final ItemTable<K, TimerEntry<K, V>> table = new ItemTable<>(false);

	private final HierarchicalWheel<K, V> wheel;

	/** Written under the lock; read without it by the executor's batches. */
	private volatile boolean stopped;

	/** Prefix of the names of this wheel's threads. */
	private final String threadPrefix;

	/** The wheel's thread, {@code null} after it ended; guarded by the lock. */
	private Thread ticker;

	/** Tick the wheel's thread sleeps until, or {@link #AWAKE}; guarded by the lock. */
	private long sleepUntilTick = AWAKE;

	/**
	 * Creates and starts a wheel on the system clock.
	 * @param interval the length of a tick, at least 1 ms: the wheel's precision
	 * @param numSlots the number of one-tick slots of the first level, positive
	 * @param execute called with the key and value of each timer that fires
	 * @throws IllegalArgumentException if {@code interval} is under 1 ms or
	 * {@code numSlots} is not positive
	 */
	public TimingWheel(Duration interval, int numSlots, BiConsumer<K, V> execute) {
		this(interval, numSlots, execute, Clock.system());
	}

	/**
	 * Creates and starts a wheel on {@code clock}.
	 * @param interval the length of a tick, at least 1 ms: the wheel's precision
	 * @param numSlots the number of one-tick slots of the first level, positive
	 * @param execute called with the key and value of each timer that fires
	 * @param clock the clock that delays are measured on
	 * @throws IllegalArgumentException if {@code interval} is under 1 ms or
	 * {@code numSlots} is not positive
	 */
	public TimingWheel(Duration interval, int numSlots, BiConsumer<K, V> execute, Clock clock) {
		this(interval, numSlots, execute, clock, null, true);
	}

	/**
	 * Creates and starts a wheel on {@code clock} that runs {@code execute} on
	 * {@code executor}, one task per tick with due timers. The executor is not shut down
	 * by {@link #stop()}. If it rejects a task while the wheel runs, the rejection is
	 * logged and the task runs on the wheel's thread, so that no timer is lost.
	 * @param interval the length of a tick, at least 1 ms: the wheel's precision
	 * @param numSlots the number of one-tick slots of the first level, positive
	 * @param execute called with the key and value of each timer that fires
	 * @param clock the clock that delays are measured on
	 * @param executor runs the calls of {@code execute}
	 * @throws IllegalArgumentException if {@code interval} is under 1 ms or
	 * {@code numSlots} is not positive
	 */
	public TimingWheel(Duration interval, int numSlots, BiConsumer<K, V> execute, Clock clock, Executor executor) {
		this(interval, numSlots, execute, clock, Objects.requireNonNull(executor, "executor"), false);
	}

	private TimingWheel(Duration interval, int numSlots, BiConsumer<K, V> execute, Clock clock, Executor executor,
			boolean ownExecutor) {
		Objects.requireNonNull(interval, "interval");
		this.execute = Objects.requireNonNull(execute, "execute");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.intervalNanos = Nanos.of(interval);
		if (this.intervalNanos < MIN_INTERVAL_NANOS) {
			// A shorter tick would have the thread walk millions of ticks per second.
			throw new IllegalArgumentException("interval must be at least 1 ms, was " + interval);
		}
		if (numSlots <= 0) {
			throw new IllegalArgumentException("numSlots must be positive, was " + numSlots);
		}
		String threadPrefix = "workqueue-timer-" + wheelNumbers.incrementAndGet();
		if (ownExecutor) {
			// One thread, no keep-alive: it waits for batches, ends on shutdown.
			this.ownedExecutor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.NANOSECONDS, new LinkedBlockingQueue<>(),
					(task) -> daemonThread(task, threadPrefix + "-execute"));
			this.executor = this.ownedExecutor;
		}
		else {
			this.executor = executor;
			this.ownedExecutor = null;
		}
		this.wheel = new HierarchicalWheel<>(this.intervalNanos, numSlots);
		this.originNanos = clock.nanoTime();
		this.threadPrefix = threadPrefix;
		// Every field is assigned: Thread.start publishes them to the wheel's thread.
		this.lock.lock();
		try {
			ensureTicker();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Sets the timer of {@code key}: {@code execute(key, value)} runs once {@code delay}
	 * has passed. A pending timer of the same key is replaced, value and delay.
	 * @param key the timer's key
	 * @param value the value handed to {@code execute}
	 * @param delay how long from now; {@code <= 0} fires as soon as possible
	 * @throws IllegalStateException if the wheel is stopped
	 */
	public void setTimer(K key, V value, Duration delay) {
		Objects.requireNonNull(key, "key");
		Objects.requireNonNull(value, "value");
		long dueNanos = dueNanos(Objects.requireNonNull(delay, "delay"));
		this.lock.lock();
		try {
			checkRunning();
			// One hashCode call: the probe and the new entry share it.
			int hash = key.hashCode();
			TimerEntry<K, V> entry = this.table.get(key, hash);
			if (entry == null) {
				entry = new TimerEntry<>(key, hash, value, dueNanos);
				this.table.putIfAbsent(entry);
			}
			else {
				entry.unlink();
				entry.value = value;
				entry.dueNanos = dueNanos;
			}
			schedule(entry);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Reschedules the pending timer of {@code key} to fire {@code delay} from now,
	 * keeping its value. Does nothing if {@code key} has no pending timer.
	 * @param key the timer's key
	 * @param delay how long from now; {@code <= 0} fires as soon as possible
	 * @throws IllegalStateException if the wheel is stopped, whatever the key
	 */
	public void moveTimer(K key, Duration delay) {
		Objects.requireNonNull(key, "key");
		long dueNanos = dueNanos(Objects.requireNonNull(delay, "delay"));
		this.lock.lock();
		try {
			checkRunning();
			TimerEntry<K, V> entry = this.table.get(key);
			if (entry != null) {
				entry.unlink();
				entry.dueNanos = dueNanos;
				schedule(entry);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Removes the pending timer of {@code key}, if any: it will not fire. Works after
	 * {@link #stop()} too.
	 * @param key the timer's key
	 */
	public void removeTimer(K key) {
		Objects.requireNonNull(key, "key");
		this.lock.lock();
		try {
			TimerEntry<K, V> entry = this.table.removeItem(key);
			if (entry != null) {
				entry.unlink();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Removes every pending timer and hands each one's key and value to {@code fn}, on
	 * the calling thread, in no particular order. When this returns, {@code fn} has seen
	 * every timer that was pending when it was called. Timers set by {@code fn} stay
	 * pending. If {@code fn} throws, the remaining timers are still handed to it, then
	 * the first exception is rethrown with the others suppressed. Works after
	 * {@link #stop()} too.
	 * @param fn receives each pending timer
	 */
	public void drain(BiConsumer<K, V> fn) {
		Objects.requireNonNull(fn, "fn");
		List<TimerEntry<K, V>> drained;
		this.lock.lock();
		try {
			drained = new ArrayList<>(this.table.size());
			this.table.forEach((entry) -> {
				entry.unlink();
				drained.add(entry);
			});
			this.table.clear();
		}
		finally {
			this.lock.unlock();
		}
		RuntimeException failure = null;
		for (TimerEntry<K, V> entry : drained) {
			try {
				fn.accept(entry.item, entry.value);
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Returns the number of pending timers: set, not removed, drained or fired yet.
	 * @return the number of pending timers
	 */
	public int size() {
		this.lock.lock();
		try {
			if (this.table.size() > 0) {
				ensureTicker();
			}
			return this.table.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops the wheel: no pending timer fires, the wheel's thread and the default
	 * executor's thread end, and {@code setTimer}/{@code moveTimer} throw
	 * {@link IllegalStateException}. Pending timers are kept for {@link #drain}.
	 * Idempotent; does not wait for the threads to end, nor for timers already due and
	 * taken out to fire: those are no longer pending ({@code drain} cannot hand them
	 * out), so they still fire, once, possibly after this returns.
	 */
	public void stop() {
		this.lock.lock();
		try {
			if (this.stopped) {
				return;
			}
			this.stopped = true;
			this.wakeUp.signal();
		}
		finally {
			this.lock.unlock();
		}
		if (this.ownedExecutor != null) {
			this.ownedExecutor.shutdown();
		}
	}

	/**
	 * Same as {@link #stop()}.
	 */
	@Override
	public void close() {
		stop();
	}

	@Override
	public String toString() {
		return "TimingWheel[interval=" + Duration.ofNanos(this.intervalNanos) + ", size=" + size()
				+ (this.stopped ? ", stopped]" : "]");
	}

	/** Reads the clock: the due time, in nanoseconds since the origin, of a delay. */
	private long dueNanos(Duration delay) {
		long nowNanos = elapsedNanos();
		long delayNanos = Nanos.of(delay);
		if (delayNanos <= 0) {
			// The tick already reached: due now, and handed out with that tick's timers.
			return nowNanos - nowNanos % this.intervalNanos;
		}
		return Nanos.add(nowNanos, delayNanos);
	}

	private long elapsedNanos() {
		// Never negative for a monotonic clock; the guard keeps a faulty one from
		// producing negative due times.
		return Math.max(0, this.clock.nanoTime() - this.originNanos);
	}

	private void schedule(TimerEntry<K, V> entry) {
		ensureTicker();
		long tick = this.wheel.schedule(entry);
		if (tick < this.sleepUntilTick) {
			this.sleepUntilTick = AWAKE;
			this.wakeUp.signal();
		}
	}

	private void checkRunning() {
		if (this.stopped) {
			throw new IllegalStateException("TimingWheel is stopped");
		}
	}

	/**
	 * The wheel's thread: takes due timers out and waits for the next ones. If it ends on
	 * a fault (a throwing {@link Clock}, an {@link Error}), it logs why and clears
	 * {@link #ticker}; the next {@code setTimer}, {@code moveTimer} or {@code size}
	 * starts a new one, and every pending timer is kept.
	 */
	private void run() {
		this.lock.lock();
		try {
			runLocked();
		}
		catch (Throwable ex) {
			logger.log(Level.WARNING, "The thread of " + this.threadPrefix
					+ " stopped on a fault; the next call on the wheel restarts it", ex);
		}
		finally {
			this.ticker = null;
			this.lock.unlock();
		}
	}

	/** The wheel thread's loop, entered and left with the lock held. */
	private void runLocked() {
		while (!this.stopped) {
			// Below Long.MAX_VALUE, which the wheel keeps for "no work", even after
			// 292 years.
			long nowTick = Math.min(elapsedNanos() / this.intervalNanos, Long.MAX_VALUE - 1);
			TimerEntry<K, V> due = this.wheel.advance(nowTick);
			if (due != null) {
				for (TimerEntry<K, V> entry = due; entry != null; entry = entry.next) {
					this.table.remove(entry);
				}
				this.lock.unlock();
				try {
					dispatch(due);
				}
				finally {
					this.lock.lock();
				}
				continue;
			}
			long nextTick = this.wheel.nextWorkTick();
			if (nextTick <= nowTick) {
				// Cascade budget spent: let waiting callers in before the next chunk.
				this.lock.unlock();
				Thread.yield();
				this.lock.lock();
				continue;
			}
			this.sleepUntilTick = nextTick;
			try {
				this.clock.awaitUntil(this.lock, this.wakeUp,
						Nanos.add(this.originNanos, this.wheel.startNanosOf(nextTick)));
			}
			catch (InterruptedException ex) {
				// Only stop() ends this thread; an interrupt from elsewhere just
				// wakes it.
			}
			finally {
				this.sleepUntilTick = AWAKE;
			}
		}
	}

	/** The name of the wheel's thread, for tests. */
	String threadName() {
		return this.threadPrefix + "-wheel";
	}

	/** Starts the wheel's thread if none runs. Called with the lock held. */
	private void ensureTicker() {
		if (this.ticker == null && !this.stopped) {
			Thread thread = daemonThread(this::run, threadName());
			this.ticker = thread;
			thread.start();
		}
	}

	/**
	 * Hands a batch of due timers to the executor, or runs it here if the executor
	 * rejects it: the batch is out of the table, so running it is the only way it is not
	 * lost (the default executor rejects once stop() shut it down).
	 */
	private void dispatch(TimerEntry<K, V> due) {
		try {
			this.executor.execute(() -> fire(due));
		}
		catch (RejectedExecutionException ex) {
			if (!this.stopped) {
				logger.log(Level.WARNING, "Executor rejected due timers; running them on the wheel's thread", ex);
			}
			fire(due);
		}
	}

	/**
	 * Runs {@code execute} for a batch of fired timers, chained by their next field, the
	 * whole batch even if the wheel stops meanwhile (see {@link #stop()}).
	 */
	private void fire(TimerEntry<K, V> due) {
		for (TimerEntry<K, V> entry = due; entry != null; entry = entry.next) {
			try {
				this.execute.accept(entry.item, entry.value);
			}
			catch (Throwable ex) {
				// The key's class only: its toString may throw too.
				String keyClass = entry.item.getClass().getName();
				logger.log(Level.WARNING, () -> "TimingWheel execute failed for a key of " + keyClass, ex);
			}
		}
	}

	private static Thread daemonThread(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

}
