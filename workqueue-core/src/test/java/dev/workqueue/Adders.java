package dev.workqueue;

import java.util.List;

/**
 * Threads that make an add, for the backends' tests of grouped adds (shared through the
 * core test jar).
 */
public final class Adders {

	private Adders() {
	}

	/**
	 * Starts a thread that runs {@code add} once.
	 * @param name the thread's name (the tests' gates hold threads by name)
	 * @param add the add
	 * @param failures where what {@code add} throws goes
	 * @return the started thread
	 */
	public static Thread start(String name, Runnable add, List<Throwable> failures) {
		Thread thread = new Thread(() -> {
			try {
				add.run();
			}
			catch (Throwable ex) {
				failures.add(ex);
			}
		}, name);
		thread.start();
		return thread;
	}

}
