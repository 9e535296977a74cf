package dev.workqueue.postgres;

import java.time.Duration;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueueStats;

/**
 * Two handles on one shared queue seen as one queue: adds go through the first, takes,
 * dones and readings through the second, so that a contract test run on it checks its
 * rules across instances.
 *
 * @param <T> the item type
 */
final class SplitQueue<T> implements DelayingQueue<T> {

	private final DelayingQueue<T> adder;

	private final DelayingQueue<T> taker;

	SplitQueue(DelayingQueue<T> adder, DelayingQueue<T> taker) {
		this.adder = adder;
		this.taker = taker;
	}

	@Override
	public void add(T item) {
		this.adder.add(item);
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
