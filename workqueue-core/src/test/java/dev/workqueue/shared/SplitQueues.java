package dev.workqueue.shared;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueStats;

/**
 * Two handles on one shared queue seen as one queue, so that a core contract
 * ({@code DelayingQueueContract}, {@code PriorityQueueContract},
 * {@code TraceContextContract}) run on it checks its rules across instances: adds (and
 * the rate limiter's bookkeeping) go through the first handle, takes, dones, readings and
 * capabilities (a poller, the shared-queue SPI) through the second. Every shared store's
 * contract tests use it in a nested {@code TwoHandles} class.
 * <p>
 * A split queue keeps no state of its own: it is as thread-safe as the two handles, and
 * blocks where they block.
 */
public final class SplitQueues {

	private SplitQueues() {
	}

	/**
	 * Joins two handles of one delaying queue.
	 * @param adder the handle every add goes through
	 * @param taker the handle every take, done and reading goes through
	 * @param <T> the item type
	 * @return the two as one queue
	 */
	public static <T> DelayingQueue<T> delaying(DelayingQueue<T> adder, DelayingQueue<T> taker) {
		return new SplitDelayingQueue<>(adder, taker);
	}

	/**
	 * Joins two handles of one rate-limiting queue.
	 * @param adder the handle every add, forget and requeue count goes through
	 * @param taker the handle every take, done and reading goes through
	 * @param <T> the item type
	 * @return the two as one queue
	 */
	public static <T> RateLimitingQueue<T> rateLimiting(RateLimitingQueue<T> adder, RateLimitingQueue<T> taker) {
		return new SplitRateLimitingQueue<>(adder, taker);
	}

	/**
	 * Joins two handles of one priority queue.
	 * @param adder the handle every add, forget and requeue count goes through
	 * @param taker the handle every take, done and reading goes through
	 * @param <T> the item type
	 * @return the two as one queue
	 */
	public static <T> PriorityQueue<T> priority(PriorityQueue<T> adder, PriorityQueue<T> taker) {
		return new SplitPriorityQueue<>(adder, taker);
	}

	private static class SplitDelayingQueue<T, Q extends DelayingQueue<T>> implements DelayingQueue<T> {

		final Q adder;

		final Q taker;

		SplitDelayingQueue(Q adder, Q taker) {
			this.adder = adder;
			this.taker = taker;
		}

		@Override
		public void add(T item) {
			this.adder.add(item);
		}

		@Override
		public void addAll(Collection<? extends T> items) {
			this.adder.addAll(items);
		}

		@Override
		public void addAfter(T item, Duration delay) {
			this.adder.addAfter(item, delay);
		}

		@Override
		public T get() throws InterruptedException {
			return this.taker.get();
		}

		@Override
		public T poll(Duration timeout) throws InterruptedException {
			return this.taker.poll(timeout);
		}

		@Override
		public void done(T item) {
			this.taker.done(item);
		}

		@Override
		public int size() {
			return this.taker.size();
		}

		@Override
		public WorkQueueStats stats() {
			return this.taker.stats();
		}

		@Override
		public <C> Optional<C> capability(Class<C> type) {
			return this.taker.capability(type);
		}

		@Override
		public void shutDown() {
			this.adder.shutDown();
			this.taker.shutDown();
		}

		@Override
		public void shutDownWithDrain() {
			this.adder.shutDown();
			this.taker.shutDownWithDrain();
		}

		@Override
		public boolean isShuttingDown() {
			return this.taker.isShuttingDown();
		}

		@Override
		public String name() {
			return this.taker.name();
		}

	}

	private static class SplitRateLimitingQueue<T, Q extends RateLimitingQueue<T>> extends SplitDelayingQueue<T, Q>
			implements RateLimitingQueue<T> {

		SplitRateLimitingQueue(Q adder, Q taker) {
			super(adder, taker);
		}

		@Override
		public void addRateLimited(T item) {
			this.adder.addRateLimited(item);
		}

		@Override
		public void forget(T item) {
			this.adder.forget(item);
		}

		@Override
		public int numRequeues(T item) {
			return this.adder.numRequeues(item);
		}

	}

	private static final class SplitPriorityQueue<T> extends SplitRateLimitingQueue<T, PriorityQueue<T>>
			implements PriorityQueue<T> {

		SplitPriorityQueue(PriorityQueue<T> adder, PriorityQueue<T> taker) {
			super(adder, taker);
		}

		@Override
		public void add(T item, int priority) {
			this.adder.add(item, priority);
		}

		@Override
		public void addAfter(T item, Duration delay, int priority) {
			this.adder.addAfter(item, delay, priority);
		}

		@Override
		public void addRateLimited(T item, int priority) {
			this.adder.addRateLimited(item, priority);
		}

		@Override
		public Prioritized<T> getWithPriority() throws InterruptedException {
			return this.taker.getWithPriority();
		}

		@Override
		public Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException {
			return this.taker.pollWithPriority(timeout);
		}

		@Override
		public List<Level> readyLevels() {
			return this.taker.readyLevels();
		}

	}

}
