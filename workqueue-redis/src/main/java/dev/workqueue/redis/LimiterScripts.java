package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisException;

import dev.workqueue.time.Clock;

/**
 * The shared limiters' scripts on the link of their client: each on one key, bounded by
 * the command timeout, with failures that name the limiters' queue and the server. The
 * link is looked up for each call, so that limiters always share the connection of the
 * client's queues, even after every queue closed and new ones opened.
 *
 * @param client the client
 * @param who names the limiters in messages
 * @param clock the time of the token buckets, or {@code null} for the server's
 * @param timeout the command timeout
 */
record LimiterScripts(AbstractRedisClient client, String who, Clock clock, Duration timeout) {

	private static final System.Logger logger = System.getLogger(LimiterScripts.class.getName());

	/**
	 * The time argument of the bucket script: µs on the clock anchored on the server's
	 * time ({@link ClockAnchor}, read at the first call), or "" for the server's.
	 * @throws RedisQueueException if the clock is not anchored yet and the server's time
	 * cannot be read
	 */
	String now() {
		if (this.clock == null) {
			return "";
		}
		long nowNanos = this.clock.nanoTime();
		RedisLink link = RedisLink.of(this.client);
		try {
			return Long
				.toString(Math.floorDiv(nowNanos, 1000) + ClockAnchor.offsetMicros(this.clock, link, this.timeout));
		}
		catch (RedisException ex) {
			throw RedisFailures.of(this.who, link.server(), ex);
		}
	}

	/**
	 * Sends a limiter script on one key without waiting for its answer: Redis runs it
	 * before any later script of the client's shared connection, and a failure is logged
	 * at DEBUG (an outage is reported by the queues' timers).
	 */
	void sendWithoutWaiting(LuaScript script, String key, String... args) {
		RedisLink link = RedisLink.of(this.client);
		try {
			link.<Long>send(script, new String[] { key }, args).whenComplete((answer, failure) -> {
				if (failure != null) {
					logger.log(Level.DEBUG, this.who + " on " + link.server() + ": " + script.name() + " failed",
							failure);
				}
			});
		}
		catch (RedisException ex) {
			logger.log(Level.DEBUG, this.who + " on " + link.server() + ": " + script.name() + " failed", ex);
		}
	}

	/** Runs a limiter script on one key. */
	long run(LuaScript script, String key, String... args) {
		RedisLink link = RedisLink.of(this.client);
		try {
			return RedisLink.answer(link.<Long>send(script, new String[] { key }, args), this.timeout);
		}
		catch (RedisException ex) {
			throw RedisFailures.of(this.who, link.server(), ex);
		}
	}

}
