package dev.workqueue.spring.metrics;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tells a priority queue's {@link PriorityDepthGauges} of new priority levels, off the
 * queue's hot path: the queue's metrics hook calls {@link #changed()} after each add (and
 * done), which costs one volatile read, and the first call after a scan hands this watch
 * to the {@link PriorityLevelScanner}'s thread, which reads the queue's ready levels and
 * registers a gauge for each new priority. Nothing is registered by the thread that adds,
 * nor under the queue's lock.
 * <p>
 * <b>States.</b> {@code DETACHED} (not a priority queue, removed, or every gauge taken):
 * {@link #changed()} does nothing. {@code IDLE}: the next change schedules a scan.
 * {@code QUEUED}: a scan is coming and will see the change. {@code SCANNING}: a change
 * now may come after the scan's read, so it is noted ({@code MISSED}) and another scan
 * follows. Transitions are compare-and-set on {@code state}; {@code lastScanNanos} is
 * only touched by the scanner thread.
 * <p>
 * Not covered: a level that appears without an add or a done on this instance (an item
 * raised to a new priority while ready, or an add by another instance of a shared queue);
 * its gauge comes when a gauge of the queue is read, as before.
 */
final class PriorityLevelWatch {

	private static final int DETACHED = 0;

	private static final int IDLE = 1;

	private static final int QUEUED = 2;

	private static final int SCANNING = 3;

	private static final int MISSED = 4;

	private final PriorityLevelScanner scanner;

	private final AtomicInteger state = new AtomicInteger(DETACHED);

	private volatile PriorityDepthGauges gauges;

	private volatile long intervalNanos;

	/** Scanner thread only, after the handover through its queue. */
	private long lastScanNanos;

	PriorityLevelWatch(PriorityLevelScanner scanner) {
		this.scanner = scanner;
	}

	/**
	 * Starts watching for the levels of {@code gauges}' queue, with a first scan for the
	 * items already there.
	 * @param gauges the gauges to tell
	 * @param intervalNanos the shortest time between two scans
	 */
	void attach(PriorityDepthGauges gauges, long intervalNanos) {
		this.gauges = gauges;
		this.intervalNanos = intervalNanos;
		this.lastScanNanos = this.scanner.clock().nanoTime() - intervalNanos;
		this.state.set(IDLE);
		changed();
	}

	/** Stops watching, for good. */
	void detach() {
		this.state.set(DETACHED);
		this.gauges = null;
	}

	/** The queue may have a new level: called by the metrics hook, on the hot path. */
	void changed() {
		int state = this.state.get();
		if (state == IDLE) {
			if (this.state.compareAndSet(IDLE, QUEUED)) {
				this.scanner.schedule(this);
			}
		}
		else if (state == SCANNING) {
			this.state.compareAndSet(SCANNING, MISSED);
		}
	}

	long nextScanNanos() {
		return this.lastScanNanos + this.intervalNanos;
	}

	/** Scans the queue's levels; on the scanner thread. */
	void scan(long nowNanos) {
		if (!this.state.compareAndSet(QUEUED, SCANNING)) {
			return;
		}
		this.lastScanNanos = nowNanos;
		PriorityDepthGauges gauges = this.gauges;
		if (gauges == null || gauges.trackReady()) {
			detach();
			return;
		}
		rescanIfMissed();
	}

	/** After a scan that could not read the queue: try again at the next change. */
	void failed() {
		if (!this.state.compareAndSet(SCANNING, IDLE)) {
			rescanIfMissed();
		}
	}

	private void rescanIfMissed() {
		if (!this.state.compareAndSet(SCANNING, IDLE) && this.state.compareAndSet(MISSED, QUEUED)) {
			this.scanner.schedule(this);
		}
	}

}
