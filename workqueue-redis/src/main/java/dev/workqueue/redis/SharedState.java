package dev.workqueue.redis;

import io.lettuce.core.ScriptOutputType;

import dev.workqueue.time.Clock;

/**
 * Where a shared limiter keeps its state: the connection its scripts run on, and the time
 * they use (the Redis server's when {@code clock} is {@code null}).
 *
 * @param redis the connection
 * @param clock the clock, or {@code null} for the server's
 */
record SharedState(RedisConnector redis, Clock clock) {

	/** Runs a limiter script on one key. */
	long run(LuaScript script, String key, String... args) {
		String[] all = new String[args.length + 2];
		all[0] = (this.clock != null) ? Long.toString(this.clock.nanoTime() / 1000) : "";
		all[1] = "";
		System.arraycopy(args, 0, all, 2, args.length);
		return this.redis.run(script, ScriptOutputType.INTEGER, new String[] { key }, all);
	}

}
