package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.workqueue.RateLimitingQueue;

/**
 * Whether a queue is a {@link dev.workqueue.PriorityQueue}, and its starvation timeout:
 * the part of its {@link QueueSettings} that decides which queue a backend builds.
 *
 * @param enabled whether the queue is a priority queue
 * @param starvationTimeout how long an item may stay ready before it goes first,
 * {@code null} for strict priorities
 */
record QueuePriority(boolean enabled, @Nullable Duration starvationTimeout) {

	/**
	 * Builds the queue with a backend's builder: a priority queue with the starvation
	 * timeout, if any, when enabled; else the plain queue.
	 * @param starvationTimeout sets the builder's starvation timeout
	 * @param priorityQueue builds a priority queue
	 * @param plainQueue builds a rate-limiting queue
	 * @return the queue
	 */
	RateLimitingQueue<Object> build(Consumer<Duration> starvationTimeout,
			Supplier<? extends RateLimitingQueue<Object>> priorityQueue,
			Supplier<? extends RateLimitingQueue<Object>> plainQueue) {
		if (!this.enabled) {
			return plainQueue.get();
		}
		if (this.starvationTimeout != null) {
			starvationTimeout.accept(this.starvationTimeout);
		}
		return priorityQueue.get();
	}

}
