package dev.workqueue.spring.metrics;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.workqueue.time.Clock;

/**
 * The one thread, {@code workqueue-priority-gauges}, that scans priority queues for new
 * priority levels so that their {@code workqueue.depth.by.priority} gauges are registered
 * off the queues' hot path: an add only hands its queue's {@link PriorityLevelWatch} to
 * this thread (once, whatever the number of adds until the scan).
 * <p>
 * Each watch is scanned at most once per its interval: the thread waits on the clock
 * until the watch's next scan is due, so a queue under a steady stream of adds is read at
 * most once per interval. Started with the first watch handed over, a daemon thread,
 * ended by {@link #close()}. Thread-safe.
 */
final class PriorityLevelScanner implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PriorityLevelScanner.class);

	private final Clock clock;

	/** Watches waiting for their scan, each at most once (their state sees to it). */
	private final BlockingQueue<PriorityLevelWatch> due = new LinkedBlockingQueue<>();

	/** Guarded by this. */
	private Thread thread;

	/** Guarded by this. */
	private boolean closed;

	PriorityLevelScanner(Clock clock) {
		this.clock = clock;
	}

	Clock clock() {
		return this.clock;
	}

	/**
	 * Hands a watch over for a scan.
	 * @param watch the watch
	 */
	void schedule(PriorityLevelWatch watch) {
		this.due.add(watch);
		startIfNeeded();
	}

	private synchronized void startIfNeeded() {
		if (this.thread == null && !this.closed) {
			this.thread = new Thread(this::run, "workqueue-priority-gauges");
			this.thread.setDaemon(true);
			this.thread.start();
		}
	}

	private void run() {
		try {
			while (!Thread.currentThread().isInterrupted()) {
				PriorityLevelWatch watch = this.due.take();
				this.clock.sleepUntil(watch.nextScanNanos());
				try {
					watch.scan(this.clock.nanoTime());
				}
				catch (RuntimeException ex) {
					// A queue that cannot be read now (Redis away) gets its gauges from
					// the next scan, or from a read of its gauges.
					logger.debug("Could not scan a priority queue for new priorities", ex);
					watch.failed();
				}
			}
		}
		catch (InterruptedException ex) {
			// closed
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.thread != null) {
			this.thread.interrupt();
		}
	}

}
