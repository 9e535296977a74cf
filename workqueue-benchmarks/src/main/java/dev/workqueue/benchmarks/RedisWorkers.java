package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Worker threads of one JVM on a Redis benchmark queue: each takes an item, counts it in
 * a {@link Progress}, and marks it done with the get of its next one
 * ({@link RedisContender.Queue#doneAndGet}). The work itself is nothing, so that what is
 * measured is the queue.
 */
final class RedisWorkers {

	private final RedisContender.Queue queue;

	private final List<Thread> threads = new ArrayList<>();

	private final LongAdder processed = new LongAdder();

	private volatile boolean stopping;

	private RedisWorkers(RedisContender.Queue queue) {
		this.queue = queue;
	}

	/**
	 * Starts {@code count} workers.
	 * @param queue the queue
	 * @param count how many
	 * @param progress where each processed item is counted
	 * @return the workers
	 */
	static RedisWorkers start(RedisContender.Queue queue, int count, Progress progress) {
		return start(queue, count, progress, (item) -> {
		});
	}

	/**
	 * Starts {@code count} workers that tell {@code got} of each item first.
	 * @param queue the queue
	 * @param count how many
	 * @param progress where each processed item is counted
	 * @param got told of each item as it is handed out, on the worker's thread
	 * @return the workers
	 */
	static RedisWorkers start(RedisContender.Queue queue, int count, Progress progress, Consumer<String> got) {
		RedisWorkers workers = new RedisWorkers(queue);
		for (int i = 0; i < count; i++) {
			Thread thread = new Thread(() -> workers.work(progress, got), "redis-bench-worker-" + i);
			thread.setDaemon(true);
			workers.threads.add(thread);
			thread.start();
		}
		return workers;
	}

	private void work(Progress progress, Consumer<String> got) {
		try {
			for (String item = this.queue.get(); item != null; item = this.queue.doneAndGet(item)) {
				got.accept(item);
				this.processed.increment();
				progress.add(1);
			}
		}
		catch (InterruptedException ex) {
			// Stopped.
		}
		catch (RuntimeException | Error ex) {
			if (!this.stopping) {
				progress.fail(ex);
			}
		}
	}

	/** Items these workers processed. */
	long processed() {
		return this.processed.sum();
	}

	/**
	 * Stops the queue object, interrupts the workers still blocked, and waits for them.
	 * @throws InterruptedException if interrupted
	 */
	void stop() throws InterruptedException {
		this.stopping = true;
		this.queue.stop();
		for (Thread thread : this.threads) {
			thread.interrupt();
		}
		for (Thread thread : this.threads) {
			thread.join(10_000);
			if (thread.isAlive()) {
				throw new IllegalStateException(thread.getName() + " did not stop");
			}
		}
	}

}
