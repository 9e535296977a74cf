package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.awaitility.Awaitility;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.store.SharedStoreQueue;
import dev.workqueue.time.Clock;

/**
 * One test's corner of the shared Redis: a client, a key prefix of its own, the queue
 * handles it built (shut down at the end) and the removal of its keys (by prefix, never
 * {@code FLUSHALL}: other tests and people share the server).
 */
final class RedisFixture implements AutoCloseable {

	final RedisClient client;

	final String prefix = "wq-test-" + UUID.randomUUID() + ":";

	private final StatefulRedisConnection<String, String> connection;

	private final List<AutoCloseable> opened = new ArrayList<>();

	RedisFixture() {
		this.client = RedisClient.create(RedisServers.shared());
		this.connection = this.client.connect();
	}

	/** Plain commands, for looking at the keys. */
	RedisCommands<String, String> redis() {
		return this.connection.sync();
	}

	/**
	 * The holders' tokens of a leases hash, by item: each value without the grant time
	 * the scripts keep after it ({@code includes/lease_value.lua}).
	 * @param leases the leases hash's key
	 * @return item to token
	 */
	Map<String, String> leaseTokens(String leases) {
		Map<String, String> tokens = new LinkedHashMap<>();
		redis().hgetall(leases).forEach((item, value) -> tokens.put(item, tokenOf(value)));
		return tokens;
	}

	/**
	 * The token of a leases hash's value: all of it for a lease of the previous release.
	 * @param value the value, or {@code null}
	 * @return its token, or {@code null}
	 */
	static String tokenOf(String value) {
		int at = (value != null) ? value.lastIndexOf(".@") : -1;
		return (at < 0) ? value : value.substring(0, at);
	}

	/** A builder of handles on the queue {@code name} under this test's prefix. */
	RedisWorkQueues.Builder<String> builder(String name) {
		return RedisWorkQueues.builder(this.client, ItemCodec.strings()).keyPrefix(this.prefix).name(name);
	}

	/**
	 * A clock's time as the scripts get it: its reading in µs plus its anchor on the
	 * server's time ({@link ClockAnchor}, read here if no handle of the clock read it).
	 */
	long scriptMicros(Clock clock) {
		long offset = ClockAnchor.offsetMicros(clock, RedisLink.of(this.client), Duration.ofSeconds(5));
		return Math.floorDiv(clock.nanoTime(), 1000) + offset;
	}

	/**
	 * Runs a queue script on {@code keys} as a handle does.
	 * @param keys the queue's keys
	 * @param nowMicros the time the script is given, "" for the server's
	 * @param script the script
	 * @param args its arguments after the time and the channel
	 * @return its answer
	 */
	<R> R runScript(QueueKeys keys, String nowMicros, LuaScript script, String... args) {
		List<String> all = new ArrayList<>(List.of(nowMicros, keys.channel()));
		all.addAll(Arrays.asList(args));
		return redis().eval(script.source(), script.output(), keys.all(), all.toArray(String[]::new));
	}

	<Q extends AutoCloseable> Q track(Q queue) {
		this.opened.add(queue);
		return queue;
	}

	String key(String name, String part) {
		return this.prefix + "{" + name + "}:" + part;
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable queue : this.opened) {
			queue.close();
		}
		// A shut-down handle's thread ends once it holds nothing (items a test left in
		// hand are handed back) and has run its last script: delete the keys after that.
		for (AutoCloseable queue : this.opened) {
			if (queue instanceof WorkQueue<?> workQueue && workQueue.capability(SharedWorkQueue.class)
				.orElse(null) instanceof RedisWorkQueue<?> redisQueue) {
				redisQueue.handBack();
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> timer(redisQueue).stopped());
			}
		}
		deleteKeys();
		this.connection.close();
		this.client.shutdown();
	}

	/** The timed work of a handle. */
	static QueueTimer timer(SharedStoreQueue<?, ?> handle) {
		return ((HandleScripts) handle.driver()).timer();
	}

	/** Deletes every key under this test's prefix. */
	void deleteKeys() {
		RedisCommands<String, String> redis = redis();
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(this.prefix + "*").limit(500));
			if (!page.getKeys().isEmpty()) {
				redis.del(page.getKeys().toArray(String[]::new));
			}
			cursor = page;
		}
		while (!cursor.isFinished());
	}

}
