package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.store.SharedResource;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The one thread that runs the timed work of every queue on a {@link RedisLink} with one
 * clock: each queue's {@link Job} says when it wants to run next, and the thread sleeps
 * on the clock until the earliest, or until a job is {@linkplain Slot#wake woken}. The
 * thread starts with the first job and ends when the last is removed, so an application
 * without redis queues has none.
 * <p>
 * The timers are shared by link and clock ({@link SharedResource}): each
 * {@linkplain #slot slot} counts a reference, which its {@linkplain Slot#stop stop} gives
 * back, and the last one takes the timer out.
 * <p>
 * A job runs on this thread only, one at a time; a slow job (a script waiting for its
 * command timeout) delays the others by as much. So no job runs the application's code
 * here: the jobs hand their hooks (the metrics' {@code stalled}) to a second thread,
 * shared as this one is ({@link Slot#hook}), so that a slow hook of one queue never holds
 * back the lease renewals of the others. Thread-safe: {@code lock} guards the schedule
 * and the thread.
 */
final class TimerThread {

	private static final System.Logger logger = System.getLogger(TimerThread.class.getName());

	/** A job's time while it runs: a wake-up during the run sets it to "now" instead. */
	private static final long RUNNING = Long.MAX_VALUE;

	/** A job's time when it should run at once. */
	private static final long NOW = Long.MIN_VALUE;

	/** After a job throws, it runs again this long after. */
	private static final long RETRY_NANOS = 1_000_000_000L;

	/**
	 * The timers by link and clock. Nothing to close: a timer's thread ends with its last
	 * job.
	 */
	private static final SharedResource<Owner, TimerThread> timers = new SharedResource<>((timer) -> {
	});

	/**
	 * The timed work of one queue.
	 */
	interface Job {

		/**
		 * Does the work that is due.
		 * @param nowNanos the clock's reading
		 * @return the reading at which to run again
		 */
		long run(long nowNanos);

	}

	/**
	 * A job's place in the schedule, made before the job: the parts of a queue that wake
	 * its timed work (a shutdown gone quiet, a lease to hand back) are built before the
	 * work itself, which takes them. Waking a slot whose job is not scheduled does
	 * nothing.
	 */
	final class Slot {

		/** Written under the thread's lock when scheduled; read by the thread after. */
		private Job job;

		/** Whether it was stopped, and gave its timer back; guarded by the lock. */
		private boolean stopped;

		private Slot() {
		}

		/** Schedules the job in this slot, to run at once. */
		void start(Job job) {
			add(this, job);
		}

		/**
		 * Removes the job, and gives the timer back; the job never runs again (one
		 * running now finishes).
		 */
		void stop() {
			remove(this);
		}

		/** Runs the job as soon as the thread can. */
		void wake() {
			TimerThread.this.wake(this);
		}

		/**
		 * Runs a hook of the application's on the hook thread, in the order given.
		 * @param hook the hook, which guards itself
		 */
		void hook(Runnable hook) {
			TimerThread.this.hooks.execute(hook);
		}

		/** The thread that runs the job, for tests. */
		TimerThread thread() {
			return TimerThread.this;
		}

	}

	private final Clock clock;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	/** Each scheduled slot's next run, on the clock. Guarded by lock. */
	private final Map<Slot, Long> schedule = new LinkedHashMap<>();

	/**
	 * Written under the lock; {@code null} while there is no job. Volatile so that tests
	 * read it without the lock.
	 */
	private volatile Thread thread;

	/**
	 * The thread of the jobs' hooks: at most one, started by the first hook and ended
	 * after a second without one.
	 */
	private final ThreadPoolExecutor hooks = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS,
			new LinkedBlockingQueue<>(), (task) -> {
				Thread hookThread = new Thread(task, "workqueue-redis-hooks");
				hookThread.setDaemon(true);
				return hookThread;
			});

	private TimerThread(Clock clock) {
		this.clock = clock;
	}

	/**
	 * Returns a new slot for one queue's work, on the timer of every queue on
	 * {@code link} that uses {@code clock}; its {@link Slot#stop} gives the timer back.
	 * @param link the queue's link
	 * @param clock the queue's clock
	 * @return the slot
	 */
	static Slot slot(RedisLink link, Clock clock) {
		return timers.acquire(new Owner(link, clock), (owner) -> new TimerThread(owner.clock())).new Slot();
	}

	private void add(Slot slot, Job job) {
		this.lock.lock();
		try {
			slot.job = job;
			this.schedule.put(slot, NOW);
			if (this.thread == null) {
				start();
			}
			this.changed.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Starts the thread. Called with the lock held. */
	private void start() {
		this.thread = new Thread(this::loop, "workqueue-redis-timer");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void remove(Slot slot) {
		boolean first;
		this.lock.lock();
		try {
			this.schedule.remove(slot);
			this.changed.signal();
			first = !slot.stopped;
			slot.stopped = true;
		}
		finally {
			this.lock.unlock();
		}
		if (first) {
			timers.release(this);
		}
	}

	private void wake(Slot slot) {
		this.lock.lock();
		try {
			if (this.schedule.containsKey(slot)) {
				this.schedule.put(slot, NOW);
				this.changed.signal();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** How many hook threads run now (at most one), for tests. */
	int hookThreads() {
		return this.hooks.getPoolSize();
	}

	/** The thread, for tests; {@code null} while there is no job. */
	Thread thread() {
		return this.thread;
	}

	private void loop() {
		try {
			Slot slot;
			while ((slot = next()) != null) {
				long at = RUNNING;
				try {
					at = slot.job.run(this.clock.nanoTime());
				}
				catch (Throwable ex) {
					// Jobs handle their own failures; this is a bug, and costs the job a
					// second. The thread goes on: every queue on the link depends on it.
					logger.log(Level.ERROR, "A Redis queue's timed work failed", ex);
					at = Nanos.add(this.clock.nanoTime(), RETRY_NANOS);
				}
				finally {
					reschedule(slot, at);
				}
			}
		}
		finally {
			replaceIfEndedEarly();
		}
	}

	/**
	 * A thread that ends with jobs left (an error escaped even the logging) is replaced.
	 */
	private void replaceIfEndedEarly() {
		this.lock.lock();
		try {
			if (this.thread == Thread.currentThread()) {
				this.thread = null;
				this.schedule.replaceAll((slot, at) -> (at == RUNNING) ? NOW : at);
				if (!this.schedule.isEmpty()) {
					start();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits for the next due job and marks it running; {@code null} when none is left.
	 */
	private Slot next() {
		this.lock.lock();
		try {
			while (true) {
				if (this.schedule.isEmpty()) {
					this.thread = null;
					return null;
				}
				Slot earliest = null;
				long earliestAt = RUNNING;
				for (Map.Entry<Slot, Long> entry : this.schedule.entrySet()) {
					if (entry.getValue() < earliestAt) {
						earliest = entry.getKey();
						earliestAt = entry.getValue();
					}
				}
				if (earliest != null && earliestAt <= this.clock.nanoTime()) {
					this.schedule.put(earliest, RUNNING);
					return earliest;
				}
				awaitChange(earliestAt);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void awaitChange(long untilNanos) {
		try {
			if (untilNanos == RUNNING) {
				this.changed.await();
			}
			else {
				this.clock.awaitUntil(this.lock, this.changed, untilNanos);
			}
		}
		catch (InterruptedException ex) {
			// Nothing interrupts this thread on purpose: look at the schedule again.
		}
	}

	private void reschedule(Slot slot, long at) {
		this.lock.lock();
		try {
			// Removed meanwhile: gone. Woken meanwhile: runs again at once.
			this.schedule.replace(slot, RUNNING, at);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The link and the clock whose queues share a timer; the link by identity. */
	private record Owner(RedisLink link, Clock clock) {
	}

}
