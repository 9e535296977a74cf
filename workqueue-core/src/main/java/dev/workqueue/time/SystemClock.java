package dev.workqueue.time;

/**
 * The real clock: {@link System#nanoTime()} shifted to start at zero, so that readings
 * stay positive and saturating deadline arithmetic never meets a negative origin.
 */
final class SystemClock implements Clock {

	static final SystemClock INSTANCE = new SystemClock();

	private final long originNanos = System.nanoTime();

	private SystemClock() {
	}

	@Override
	public long nanoTime() {
		return System.nanoTime() - this.originNanos;
	}

	@Override
	public String toString() {
		return "Clock.system()";
	}

}
