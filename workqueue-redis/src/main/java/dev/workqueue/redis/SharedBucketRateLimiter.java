package dev.workqueue.redis;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import dev.workqueue.ItemCodec;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * A token bucket in Redis, shared by every instance: one for all items, or one per item
 * (its key carries the encoded item). {@code when} reserves a token as
 * {@code golang.org/x/time/rate} does and returns the wait; {@code numRequeues} is always
 * 0; {@code forget} gives an item its fresh bucket back, and does nothing to the shared
 * one.
 *
 * @param <T> the item type
 */
final class SharedBucketRateLimiter<T> implements RateLimiter<T> {

	private final LimiterScripts scripts;

	private final ItemCodec<T> codec;

	private final String key;

	private final boolean perItem;

	private final double qps;

	private final int burst;

	SharedBucketRateLimiter(LimiterScripts scripts, ItemCodec<T> codec, String key, boolean perItem, double qps,
			int burst) {
		// Negated so that NaN is refused too.
		if (!(qps > 0) || Double.isInfinite(qps)) {
			throw new IllegalArgumentException("qps must be positive and finite, was " + qps);
		}
		if (burst < 1) {
			throw new IllegalArgumentException("burst must be at least 1, was " + burst);
		}
		this.scripts = scripts;
		this.codec = codec;
		this.key = key;
		this.perItem = perItem;
		this.qps = qps;
		this.burst = burst;
	}

	@Override
	public Duration when(T item) {
		long waitMicros = this.scripts.run(LuaScript.BUCKET, keyOf(item), this.scripts.now(), Double.toString(this.qps),
				Integer.toString(this.burst));
		return Duration.of(waitMicros, ChronoUnit.MICROS);
	}

	@Override
	public void forget(T item) {
		if (this.perItem) {
			this.scripts.run(LuaScript.DELETE, keyOf(item));
		}
	}

	@Override
	public int numRequeues(T item) {
		return 0;
	}

	private String keyOf(T item) {
		return this.perItem ? this.key + ItemCodecs.encode(this.codec, item) : this.key;
	}

	@Override
	public String toString() {
		return "SharedBucketRateLimiter[qps=" + this.qps + ", burst=" + this.burst + (this.perItem ? ", per item" : "")
				+ " at " + this.key + "]";
	}

}
