package dev.workqueue.redis;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.workqueue.ItemCodec;
import dev.workqueue.ratelimit.FailureCounts;

/**
 * Failure counts in a Redis hash that every instance shares: the store of the shared
 * exponential and fast-slow limiters (core's arithmetic over counts kept here), and of
 * the attempts behind {@code max-retries}. Each call is one script; {@code forget} is not
 * waited for. The hash expires once no failure has been counted for the builder's history
 * time to live.
 * <p>
 * Each count carries an attempt id unique to the call (this store's random id and a
 * count), so that a count Lettuce sends again after a dropped connection counts once: the
 * script remembers the last attempt counted for each item.
 *
 * @param <T> the item type
 */
final class RedisFailureCounts<T> implements FailureCounts<T> {

	private final LimiterScripts scripts;

	private final ItemCodec<T> codec;

	private final String key;

	private final String ttlMillis;

	/** The prefix of this store's attempt ids: random, as a handle's id. */
	private final String attemptPrefix = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
			+ ":";

	private final AtomicLong attempts = new AtomicLong();

	RedisFailureCounts(LimiterScripts scripts, ItemCodec<T> codec, String key, long ttlMillis) {
		this.scripts = scripts;
		this.codec = codec;
		this.key = key;
		this.ttlMillis = Long.toString(ttlMillis);
	}

	@Override
	public int countFailure(T item) {
		return saturated(run("count", item, this.attemptPrefix + Long.toString(this.attempts.incrementAndGet(), 36)));
	}

	@Override
	public int failures(T item) {
		return saturated(run("read", item, ""));
	}

	@Override
	public void forget(T item) {
		// Not waited for: a worker forgets each item it finished, and the forget goes
		// to Redis ahead of the worker's next script on the same connection, at no round
		// trip of its own. Should it fail, the item's next failure counts on from its
		// old history.
		this.scripts.sendWithoutWaiting(LuaScript.FAILURES, this.key, "forget", ItemCodecs.encode(this.codec, item),
				this.ttlMillis);
	}

	private long run(String operation, T item, String attempt) {
		return this.scripts.run(LuaScript.FAILURES, this.key, operation, ItemCodecs.encode(this.codec, item),
				this.ttlMillis, attempt);
	}

	private static int saturated(long count) {
		return (int) Math.min(Integer.MAX_VALUE, count);
	}

	@Override
	public String toString() {
		return "RedisFailureCounts[" + this.key + "]";
	}

}
