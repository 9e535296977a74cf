package dev.workqueue.spring.worker;

import java.time.Duration;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueStats;

/**
 * A {@link RateLimitingQueue} that forwards every call, for tests that change one.
 */
class ForwardingRateLimitingQueue implements RateLimitingQueue<Object> {

	private final RateLimitingQueue<Object> queue;

	ForwardingRateLimitingQueue(RateLimitingQueue<Object> queue) {
		this.queue = queue;
	}

	@Override
	public void add(Object item) {
		this.queue.add(item);
	}

	@Override
	public Object get() throws InterruptedException {
		return this.queue.get();
	}

	@Override
	public Object poll(Duration timeout) throws InterruptedException {
		return this.queue.poll(timeout);
	}

	@Override
	public void done(Object item) {
		this.queue.done(item);
	}

	@Override
	public int size() {
		return this.queue.size();
	}

	@Override
	public void shutDown() {
		this.queue.shutDown();
	}

	@Override
	public void shutDownWithDrain() {
		this.queue.shutDownWithDrain();
	}

	@Override
	public boolean isShuttingDown() {
		return this.queue.isShuttingDown();
	}

	@Override
	public String name() {
		return this.queue.name();
	}

	@Override
	public WorkQueueStats stats() {
		return this.queue.stats();
	}

	@Override
	public void addAfter(Object item, Duration delay) {
		this.queue.addAfter(item, delay);
	}

	@Override
	public void addRateLimited(Object item) {
		this.queue.addRateLimited(item);
	}

	@Override
	public void forget(Object item) {
		this.queue.forget(item);
	}

	@Override
	public int numRequeues(Object item) {
		return this.queue.numRequeues(item);
	}

}
