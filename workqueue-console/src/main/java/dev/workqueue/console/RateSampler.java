package dev.workqueue.console;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.log.LogMessage;

import dev.workqueue.spring.WorkQueueRegistry;
import dev.workqueue.time.Clock;

/**
 * Samples every queue's running totals of adds and retries every
 * {@value #INTERVAL_SECONDS} seconds of its {@link Clock}, on one daemon thread per
 * application ({@code workqueue-console-rates}), and keeps the last five minutes of them:
 * the rates the console draws.
 * <p>
 * Thread-safe. {@code lock} guards {@code sampling}, the thread that samples; the
 * sampling thread waits on {@code stopped} through the clock between samples, and
 * {@link #stop()} wakes it. A thread ends as soon as it finds it is no longer the one
 * that samples, so a stop and a start while it is taking a sample leave one thread. Each
 * queue's history is guarded by its own monitor, which {@link #rates(String)} takes too.
 */
final class RateSampler implements SmartLifecycle {

	/** Seconds between two samples. */
	static final int INTERVAL_SECONDS = 10;

	/** Rates kept per queue: five minutes of them. */
	static final int RATES = 30;

	private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS);

	private static final Log logger = LogFactory.getLog(RateSampler.class);

	private final WorkQueueRegistry queues;

	private final QueueCounters counters;

	private final Clock clock;

	private final Map<String, History> histories = new ConcurrentHashMap<>();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition stopped = this.lock.newCondition();

	/** The thread that samples, {@code null} when stopped; guarded by lock. */
	private @Nullable Thread sampling;

	RateSampler(WorkQueueRegistry queues, QueueCounters counters, Clock clock) {
		this.queues = queues;
		this.counters = counters;
		this.clock = clock;
	}

	/**
	 * Reads every queue's totals once. A queue whose totals cannot be read (its store out
	 * of reach) keeps its history as it was.
	 */
	void sample() {
		for (String name : this.queues.names()) {
			try {
				double adds = this.counters.adds(name);
				double retries = this.counters.retries(name);
				this.histories.computeIfAbsent(name, (key) -> new History()).record(adds, retries);
			}
			catch (RuntimeException ex) {
				logger.debug(LogMessage.format("Could not sample the counters of queue '%s'", name), ex);
			}
		}
	}

	/**
	 * Returns the recent rates of a queue, oldest first.
	 * @param name the queue's name
	 * @return its rates; empty lists before two samples
	 */
	ConsoleRates rates(String name) {
		History history = this.histories.get(name);
		return (history != null) ? history.rates() : new ConsoleRates(INTERVAL_SECONDS, List.of(), List.of());
	}

	@Override
	public void start() {
		this.lock.lock();
		try {
			if (this.sampling != null) {
				return;
			}
			this.sampling = new Thread(this::sampleUntilStopped, "workqueue-console-rates");
			this.sampling.setDaemon(true);
			this.sampling.start();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void sampleUntilStopped() {
		long nextNanos = this.clock.nanoTime();
		while (true) {
			sample();
			nextNanos += INTERVAL_NANOS;
			this.lock.lock();
			try {
				while (this.sampling == Thread.currentThread() && this.clock.nanoTime() - nextNanos < 0) {
					this.clock.awaitUntil(this.lock, this.stopped, nextNanos);
				}
				if (this.sampling != Thread.currentThread()) {
					return;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	/**
	 * Stops sampling: the thread ends at once, or after the sample it is taking.
	 */
	@Override
	public void stop() {
		this.lock.lock();
		try {
			this.sampling = null;
			this.stopped.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean isRunning() {
		this.lock.lock();
		try {
			return this.sampling != null;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The last {@value #RATES} + 1 totals of one queue. */
	private static final class History {

		private final Deque<Double> adds = new ArrayDeque<>();

		private final Deque<Double> retries = new ArrayDeque<>();

		synchronized void record(double adds, double retries) {
			keep(this.adds, adds);
			keep(this.retries, retries);
		}

		synchronized ConsoleRates rates() {
			return new ConsoleRates(INTERVAL_SECONDS, perSecond(this.adds), perSecond(this.retries));
		}

		private static void keep(Deque<Double> totals, double total) {
			if (Double.isNaN(total)) {
				totals.clear();
				return;
			}
			totals.addLast(total);
			if (totals.size() > RATES + 1) {
				totals.removeFirst();
			}
		}

		private static List<Double> perSecond(Deque<Double> totals) {
			List<Double> rates = new ArrayList<>(RATES);
			Double previous = null;
			for (Double total : totals) {
				if (previous != null) {
					// A total that went down was reset (a meter re-registered): count
					// from it.
					rates.add(Math.max(0, total - previous) / INTERVAL_SECONDS);
				}
				previous = total;
			}
			return rates;
		}

	}

}
