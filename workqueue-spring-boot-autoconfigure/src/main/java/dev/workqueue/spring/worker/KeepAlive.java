package dev.workqueue.spring.worker;

import java.util.concurrent.CountDownLatch;

/**
 * One non-daemon thread that keeps the JVM running while worker containers run, so that
 * an application made only of queue workers (no web server, no other non-daemon thread)
 * does not exit as soon as its {@code main} returns: worker threads are daemon threads so
 * that they never hold up an exit on their own.
 * <p>
 * The thread does nothing but wait for {@link #stop()}. Spring Boot's shutdown hook
 * closes the context on SIGTERM, which stops the workers (draining them) and then this
 * thread; the JVM exits once the hook returns. This is Spring Boot's own
 * {@code spring.main.keep-alive} thread, tied to the workers' lifecycle instead of the
 * context's.
 * <p>
 * Thread-safe: {@link #start()} and {@link #stop()} synchronize on this object, which
 * guards {@code thread}; the latch hands the stop over to the waiting thread.
 */
final class KeepAlive {

	private final String threadName;

	private final CountDownLatch stopped = new CountDownLatch(1);

	private Thread thread;

	/**
	 * Creates a keep-alive whose thread, once started, is named {@code threadName}.
	 * @param threadName the thread's name
	 */
	KeepAlive(String threadName) {
		this.threadName = threadName;
	}

	/** Starts the thread; a no-op once started or stopped. */
	synchronized void start() {
		if (this.thread != null || this.stopped.getCount() == 0) {
			return;
		}
		this.thread = new Thread(this::awaitStop, this.threadName);
		this.thread.setDaemon(false);
		this.thread.start();
	}

	/** Ends the thread, for good; returns without waiting for it to end. */
	synchronized void stop() {
		this.stopped.countDown();
	}

	/** Whether the thread is alive; for tests. */
	synchronized boolean isAlive() {
		return this.thread != null && this.thread.isAlive();
	}

	private void awaitStop() {
		// An interrupt is not a stop: only stop() ends the wait, as with Boot's thread.
		boolean waiting = true;
		while (waiting) {
			try {
				this.stopped.await();
				waiting = false;
			}
			catch (InterruptedException ex) {
				// keep waiting
			}
		}
	}

}
