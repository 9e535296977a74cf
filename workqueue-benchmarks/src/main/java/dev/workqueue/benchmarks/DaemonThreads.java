package dev.workqueue.benchmarks;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ThreadFactory} of named daemon threads, for the peers that take one, so that
 * their threads can be told apart and never keep a JMH fork alive.
 */
final class DaemonThreads implements ThreadFactory {

	private final String name;

	private final AtomicInteger created = new AtomicInteger();

	DaemonThreads(String name) {
		this.name = name;
	}

	@Override
	public Thread newThread(Runnable task) {
		Thread thread = new Thread(task, this.name + "-" + this.created.incrementAndGet());
		thread.setDaemon(true);
		return thread;
	}

}
