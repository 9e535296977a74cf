package dev.workqueue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * A test rate limiter: always the same delay, counting {@code when} calls per item.
 */
final class FixedDelayRateLimiter<T> implements RateLimiter<T> {

	private final Duration delay;

	private final Map<T, Integer> requeues = new ConcurrentHashMap<>();

	FixedDelayRateLimiter(Duration delay) {
		this.delay = delay;
	}

	@Override
	public Duration when(T item) {
		this.requeues.merge(item, 1, Integer::sum);
		return this.delay;
	}

	@Override
	public void forget(T item) {
		this.requeues.remove(item);
	}

	@Override
	public int numRequeues(T item) {
		return this.requeues.getOrDefault(item, 0);
	}

	int trackedItems() {
		return this.requeues.size();
	}

}
