package dev.workqueue.redis;

import java.time.Duration;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * A failure-counting limiter whose counts live in a Redis hash shared by every instance:
 * each {@code when} counts one failure of the item there and returns the
 * {@link FailureDelay} of the failures before it.
 *
 * @param <T> the item type
 */
final class SharedFailureRateLimiter<T> implements RateLimiter<T> {

	private final SharedState state;

	private final ItemCodec<T> codec;

	private final String key;

	private final FailureDelay delay;

	SharedFailureRateLimiter(SharedState state, ItemCodec<T> codec, String key, FailureDelay delay) {
		this.state = state;
		this.codec = codec;
		this.key = key;
		this.delay = delay;
	}

	@Override
	public Duration when(T item) {
		return this.delay.after(this.state.run(LuaScript.FAILURES, this.key, "when", this.codec.encode(item)));
	}

	@Override
	public void forget(T item) {
		this.state.run(LuaScript.FAILURES, this.key, "forget", this.codec.encode(item));
	}

	@Override
	public int numRequeues(T item) {
		return (int) Math.min(Integer.MAX_VALUE,
				this.state.run(LuaScript.FAILURES, this.key, "count", this.codec.encode(item)));
	}

	@Override
	public String toString() {
		return "SharedFailureRateLimiter[" + this.delay + " at " + this.key + "]";
	}

}
