package dev.workqueue.console;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.log.LogMessage;

import dev.workqueue.time.Clock;

/**
 * Keeps the latest reading of every queue's figures ({@link ConsoleQueues#describe}), so
 * that requests answer from it instead of reading a long shared queue each time.
 * <p>
 * While the console is watched (a request asked for figures in the last
 * {@value #WATCHED_SECONDS} seconds of its {@link Clock}), one daemon thread per
 * application ({@code workqueue-console-figures}) reads every queue's figures about once
 * a second, one queue after the other: a queue whose store answers slowly delays the
 * readings of the queues after it in that round, by as long. When nobody has asked for
 * that long, the thread forgets the readings and waits, costing nothing, until the next
 * request; a request that finds no reading of a queue (the first after start or after an
 * idle spell) reads it itself, once for every request that waits for it.
 * <p>
 * Thread-safe. {@code lock} guards {@code refreshing}, {@code lastRequestNanos} and
 * {@code idle}; the thread waits on {@code wake}, which a request after an idle spell and
 * {@link #stop()} signal. Readings are replaced only by later ones (by {@code reads}), so
 * a round that began before an action cannot overwrite the reading the action made.
 */
final class ConsoleFigures implements SmartLifecycle {

	/** Seconds without a request after which the console counts as not watched. */
	static final int WATCHED_SECONDS = 30;

	private static final long WATCHED_NANOS = TimeUnit.SECONDS.toNanos(WATCHED_SECONDS);

	private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final Log logger = LogFactory.getLog(ConsoleFigures.class);

	private final ConsoleQueues queues;

	private final Clock clock;

	private final Map<String, Reading> readings = new ConcurrentHashMap<>();

	/** One monitor per queue name, for the request that reads a queue no one has read. */
	private final Map<String, Object> firstReads = new ConcurrentHashMap<>();

	private final AtomicLong reads = new AtomicLong();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wake = this.lock.newCondition();

	/** Guarded by lock. */
	/**
	 * The thread that refreshes, {@code null} once stopped; guarded by lock. Any other
	 * thread (one still reading its round when a stop and a start came) ends.
	 */
	private Thread refreshing;

	/** Guarded by lock. */
	private boolean watched;

	/** When a request last asked, on clock; guarded by lock, read only when watched. */
	private long lastRequestNanos;

	/** Whether the thread waits for a request; guarded by lock. */
	private boolean idle;

	ConsoleFigures(ConsoleQueues queues, Clock clock) {
		this.queues = queues;
		this.clock = clock;
	}

	/**
	 * Returns every queue's latest figures, for a request.
	 * @return the overview, its time that of its oldest reading
	 */
	ConsoleOverview overview() {
		watched();
		List<ConsoleQueue> figures = this.queues.names().stream().map(this::latest).toList();
		String time = figures.stream()
			.map((queue) -> Instant.parse(queue.readAt()))
			.min(Comparator.naturalOrder())
			.orElseGet(this.queues::now)
			.toString();
		return this.queues.overview(figures, time);
	}

	/**
	 * Returns the latest figures of a queue, for a request: read now if there is no
	 * reading of it.
	 * @param name the name of a queue of the registry
	 * @return its figures
	 */
	ConsoleQueue figures(String name) {
		watched();
		return latest(name);
	}

	private ConsoleQueue latest(String name) {
		Reading reading = this.readings.get(name);
		if (reading != null) {
			return reading.figures();
		}
		synchronized (this.firstReads.computeIfAbsent(name, (key) -> new Object())) {
			reading = this.readings.get(name);
			return (reading != null) ? reading.figures() : read(name);
		}
	}

	/**
	 * Reads a queue's figures now and keeps them, after an action changed them.
	 * @param name the name of a queue of the registry
	 * @return its figures
	 */
	ConsoleQueue refresh(String name) {
		watched();
		return read(name);
	}

	/**
	 * Reads every queue's figures once, one after the other.
	 */
	void refreshAll() {
		for (String name : this.queues.names()) {
			try {
				read(name);
			}
			catch (RuntimeException ex) {
				// Not the store (describe answers that with the error): keep refreshing
				// the others.
				logger.warn(LogMessage.format("Could not read the figures of queue '%s'", name), ex);
			}
		}
	}

	private ConsoleQueue read(String name) {
		long sequence = this.reads.incrementAndGet();
		ConsoleQueue figures = this.queues.describe(name);
		this.readings.merge(name, new Reading(figures, sequence),
				(kept, read) -> (read.sequence() > kept.sequence()) ? read : kept);
		return figures;
	}

	/** Notes a request, and wakes the thread if it waits for one. */
	private void watched() {
		this.lock.lock();
		try {
			this.watched = true;
			this.lastRequestNanos = this.clock.nanoTime();
			this.wake.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns whether the thread waits for a request, the console not watched.
	 * @return whether it is idle
	 */
	boolean isIdle() {
		this.lock.lock();
		try {
			return this.idle;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void start() {
		this.lock.lock();
		try {
			if (this.refreshing != null) {
				return;
			}
			this.refreshing = new Thread(this::refreshUntilStopped, "workqueue-console-figures");
			this.refreshing.setDaemon(true);
			this.refreshing.start();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void refreshUntilStopped() {
		try {
			while (awaitWatched()) {
				long nextNanos = this.clock.nanoTime() + INTERVAL_NANOS;
				refreshAll();
				if (!awaitUntil(nextNanos)) {
					return;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Waits until the console is watched; forgets the readings when it is not, since they
	 * grow old unseen.
	 * @return whether to go on, {@code false} once stopped
	 */
	private boolean awaitWatched() throws InterruptedException {
		this.lock.lock();
		try {
			if (this.watched && this.clock.nanoTime() - this.lastRequestNanos >= WATCHED_NANOS) {
				this.watched = false;
			}
			if (refreshes() && !this.watched) {
				// Cleared under lock: a request that comes after has to take the lock
				// first to note itself, so what it reads is never cleared.
				this.readings.clear();
				this.idle = true;
				while (refreshes() && !this.watched) {
					this.wake.await();
				}
				this.idle = false;
			}
			return refreshes();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Whether the calling thread is the one that refreshes. Called with the lock held.
	 */
	private boolean refreshes() {
		return this.refreshing == Thread.currentThread();
	}

	private boolean awaitUntil(long nextNanos) throws InterruptedException {
		this.lock.lock();
		try {
			while (refreshes() && this.clock.nanoTime() - nextNanos < 0) {
				this.clock.awaitUntil(this.lock, this.wake, nextNanos);
			}
			return refreshes();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops refreshing: the thread ends at once, or after the round it is reading.
	 */
	@Override
	public void stop() {
		this.lock.lock();
		try {
			this.refreshing = null;
			this.wake.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean isRunning() {
		this.lock.lock();
		try {
			return this.refreshing != null;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** A queue's figures and the number of the read that took them. */
	private record Reading(ConsoleQueue figures, long sequence) {
	}

}
