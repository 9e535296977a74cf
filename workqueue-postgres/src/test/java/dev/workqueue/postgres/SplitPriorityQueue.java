package dev.workqueue.postgres;

import java.time.Duration;

import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueStats;

/**
 * Two handles on one shared priority queue seen as one queue: adds go through the first,
 * takes, dones and readings through the second, so that a contract test run on it checks
 * the priority rules across instances.
 *
 * @param <T> the item type
 */
final class SplitPriorityQueue<T> implements PriorityQueue<T> {

	private final PriorityQueue<T> adder;

	private final PriorityQueue<T> taker;

	SplitPriorityQueue(PriorityQueue<T> adder, PriorityQueue<T> taker) {
		this.adder = adder;
		this.taker = taker;
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
	public void forget(T item) {
		this.adder.forget(item);
	}

	@Override
	public int numRequeues(T item) {
		return this.adder.numRequeues(item);
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
