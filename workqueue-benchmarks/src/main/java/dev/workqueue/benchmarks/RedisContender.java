package dev.workqueue.benchmarks;

import java.time.Duration;

/**
 * One side of the Redis benchmarks (issue 12): a client of the shared Redis and the
 * queues built on it, behind the few calls the workloads make, so that every workload is
 * written once for both sides.
 * <p>
 * A side is chosen by name ({@link #named}): the worker JVMs of the 3-JVM case are told
 * which side to run with one argument, and each side's library code stays in its own file
 * ({@code OursRedisContender}, {@code RedissonContender}).
 */
interface RedisContender extends AutoCloseable {

	/**
	 * Returns a new, unconnected side.
	 * @param name {@code ours}, {@code ours-priority} (our priority queue, each item at
	 * one of eight priorities) or {@code redisson}
	 * @return the side
	 */
	static RedisContender named(String name) {
		String className = switch (name) {
			case "ours" -> "dev.workqueue.benchmarks.OursRedisContender";
			case "ours-priority" -> "dev.workqueue.benchmarks.OursRedisContender$Priority";
			case "redisson" -> "dev.workqueue.benchmarks.RedissonContender";
			default -> throw new IllegalArgumentException("no Redis contender named '" + name + "'");
		};
		try {
			return (RedisContender) Class.forName(className).getDeclaredConstructor().newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("contender '" + name + "' is not in this build: " + ex, ex);
		}
	}

	/**
	 * Connects to the benchmarks' Redis ({@link RedisAdmin#HOST},
	 * {@link RedisAdmin#PORT}), every connection named {@code clientName}
	 * ({@code CLIENT SETNAME}) so that its commands can be told apart on a shared server.
	 * @param clientName the connections' name
	 */
	void open(String clientName);

	/**
	 * Builds a work queue: ours' {@code buildQueue()}, Redisson's {@code RBlockingQueue}.
	 * @param name the queue's name, from {@link RedisAdmin#uniqueName}: every key the
	 * queue makes contains it
	 * @return the queue
	 */
	Queue queue(String name);

	/**
	 * Builds a delaying queue: ours' {@code buildDelayingQueue()}, Redisson's
	 * {@code RDelayedQueue} in front of an {@code RBlockingQueue}.
	 * @param name as {@link #queue}
	 * @return the queue
	 */
	Queue delayingQueue(String name);

	/** Closes the client; stop the queues first. */
	@Override
	void close();

	/** A queue of string items, as each side offers it. */
	interface Queue {

		void add(String item);

		/**
		 * Adds {@code item} once {@code delay} has passed; delaying queues only. The
		 * workloads give whole milliseconds (Redisson's unit).
		 * @param item the item
		 * @param delay the delay
		 */
		void addAfter(String item, Duration delay);

		/**
		 * Blocks until an item is handed out: ours' {@code get}, Redisson's {@code take}.
		 * @return the item, or {@code null} once this queue object is stopped
		 * @throws InterruptedException if interrupted
		 */
		String get() throws InterruptedException;

		/**
		 * Ends the processing of an item: ours' {@code done}; nothing for Redisson, whose
		 * item left Redis when it was taken (no lease, no dedup).
		 * @param item the item
		 */
		void done(String item);

		/**
		 * A worker's step to its next item: {@link #done} of {@code item}, then
		 * {@link #get}. Ours does both in one round trip when an item is ready (the path
		 * its worker containers take); Redisson has nothing to do on done.
		 * @param item the item processed
		 * @return the next item, or {@code null} once this queue object is stopped
		 * @throws InterruptedException if interrupted
		 */
		default String doneAndGet(String item) throws InterruptedException {
			done(item);
			return get();
		}

		/**
		 * Stops this queue object (ours' {@code shutDown}: the items stay in Redis;
		 * Redisson's delayed queue is destroyed). Consumers blocked in {@link #get} are
		 * then interrupted by the caller.
		 */
		void stop();

	}

}
