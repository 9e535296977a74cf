package dev.workqueue;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starting and joining the threads of the stress tests.
 */
final class TestThreads {

	private TestThreads() {
	}

	static Thread start(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.start();
		return thread;
	}

	/** Joins each thread, failing if one is still running after {@code deadline}. */
	static void join(List<Thread> threads, Duration deadline) throws InterruptedException {
		for (Thread thread : threads) {
			thread.join(deadline.toMillis());
			assertThat(thread.isAlive()).as(thread.getName() + " finished").isFalse();
		}
	}

}
