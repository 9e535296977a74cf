package dev.workqueue.console;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.log.LogMessage;

import dev.workqueue.spring.WorkQueueRegistry;

/**
 * Samples every queue's running totals of adds and retries every
 * {@value #INTERVAL_SECONDS} seconds, on one daemon thread per application, and keeps the
 * last five minutes of them: the rates the console draws.
 * <p>
 * Thread-safe: {@link #sample()} runs on the sampler's thread (or a test's), and each
 * queue's history is guarded by its own monitor, which {@link #rates(String)} takes too.
 */
final class RateSampler implements SmartLifecycle {

	/** Seconds between two samples. */
	static final int INTERVAL_SECONDS = 10;

	/** Rates kept per queue: five minutes of them. */
	static final int RATES = 30;

	private static final Log logger = LogFactory.getLog(RateSampler.class);

	private final WorkQueueRegistry queues;

	private final QueueCounters counters;

	private final Map<String, History> histories = new ConcurrentHashMap<>();

	private final Object lifecycleLock = new Object();

	/** Guarded by lifecycleLock. */
	private @Nullable ScheduledExecutorService executor;

	RateSampler(WorkQueueRegistry queues, QueueCounters counters) {
		this.queues = queues;
		this.counters = counters;
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
		synchronized (this.lifecycleLock) {
			if (this.executor != null) {
				return;
			}
			ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "workqueue-console-rates");
				thread.setDaemon(true);
				return thread;
			});
			executor.scheduleAtFixedRate(this::sample, 0, INTERVAL_SECONDS, TimeUnit.SECONDS);
			this.executor = executor;
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleLock) {
			if (this.executor != null) {
				this.executor.shutdownNow();
				this.executor = null;
			}
		}
	}

	@Override
	public boolean isRunning() {
		synchronized (this.lifecycleLock) {
			return this.executor != null;
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
