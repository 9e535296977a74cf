package dev.workqueue.redis;

import java.time.Duration;
import java.util.Objects;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

import dev.workqueue.ItemCodec;
import dev.workqueue.store.OptionChecks;
import dev.workqueue.time.Clock;

/**
 * The options a queue and its shared limiters have in common, checked once: the client,
 * the codec, the queue's name and key prefix, the clock and the command timeout. Each of
 * {@link RedisWorkQueues.Builder} and {@link RedisRateLimiters.Builder} keeps one; the
 * limiters' builder a queue builder hands out starts from a copy of the queue's. Not
 * thread-safe, as the builders.
 *
 * @param <T> the item type
 */
final class RedisOptions<T> {

	final AbstractRedisClient client;

	final ItemCodec<T> codec;

	/** {@code null} until set: it is required. */
	private String name;

	private String keyPrefix = "workqueue:";

	/** {@code null}: the Redis server's clock. */
	private Clock clock;

	private Duration commandTimeout = Duration.ofSeconds(5);

	RedisOptions(AbstractRedisClient client, ItemCodec<T> codec) {
		Objects.requireNonNull(client, "client");
		if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
			throw new IllegalArgumentException("client must be a RedisClient or a RedisClusterClient, was " + client);
		}
		this.client = client;
		this.codec = Objects.requireNonNull(codec, "codec");
	}

	/** A copy, to change apart. */
	RedisOptions<T> copy() {
		RedisOptions<T> copy = new RedisOptions<>(this.client, this.codec);
		copy.name = this.name;
		copy.keyPrefix = this.keyPrefix;
		copy.clock = this.clock;
		copy.commandTimeout = this.commandTimeout;
		return copy;
	}

	void name(String name) {
		this.name = QueueKeys.checkName(name);
	}

	void keyPrefix(String prefix) {
		this.keyPrefix = QueueKeys.checkPrefix(prefix);
	}

	void clock(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "clock");
	}

	void commandTimeout(Duration commandTimeout) {
		this.commandTimeout = OptionChecks.atLeast("commandTimeout", commandTimeout,
				RedisWorkQueues.Builder.MIN_COMMAND_TIMEOUT);
	}

	/**
	 * The queue's name.
	 * @param why why it is needed, for the message
	 * @return the name
	 * @throws IllegalStateException if it was not set
	 */
	String requiredName(String why) {
		if (this.name == null) {
			throw new IllegalStateException("name is required: " + why);
		}
		return this.name;
	}

	String keyPrefix() {
		return this.keyPrefix;
	}

	/** The clock given, or {@code null} for the Redis server's. */
	Clock clock() {
		return this.clock;
	}

	Duration commandTimeout() {
		return this.commandTimeout;
	}

}
