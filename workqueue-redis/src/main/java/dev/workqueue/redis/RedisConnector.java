package dev.workqueue.redis;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * One queue object's link to Redis: a connection of its own from the application's client
 * (standalone, Sentinel or Cluster), opened on first use and reopened after a failed
 * attempt, through which every script runs; and the error mapping that turns the client's
 * exceptions into {@link RedisQueueException}s naming the queue and the server.
 * <p>
 * Scripts run with {@code EVALSHA}; a server that does not know a script yet (first use,
 * restart, failover) answers {@code NOSCRIPT} and gets it once with {@code EVAL}. Calls
 * are synchronous and bounded by the command timeout. An interrupt does not cut a call
 * short: the caller waits for the answer and finds its interrupt status set after. A
 * script cut short could have leased an item on the server that its caller then never
 * learns of (workers are interrupted to pause them). Lettuce multiplexes the connection,
 * so concurrent callers never wait for each other's round trip, and no blocking command
 * ever runs on it.
 * <p>
 * Thread-safe. The connection is published through a volatile field.
 */
final class RedisConnector implements AutoCloseable {

	private final AbstractRedisClient client;

	private final String queueName;

	private final Duration commandTimeout;

	private final RedisConnectionStateListener serverTracker = new RedisConnectionStateListener() {

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
			RedisConnector.this.server = String.valueOf(socketAddress);
		}

	};

	private final Object connectLock = new Object();

	/**
	 * Where the client last connected; until it has, the client's own messages name the
	 * server it tried.
	 */
	private volatile String server = "Redis";

	private volatile StatefulConnection<String, String> connection;

	private volatile RedisScriptingAsyncCommands<String, String> commands;

	private volatile boolean closed;

	RedisConnector(AbstractRedisClient client, String queueName, Duration commandTimeout) {
		if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
			throw new IllegalArgumentException("client must be a RedisClient or a RedisClusterClient, was " + client);
		}
		this.client = client;
		this.queueName = queueName;
		this.commandTimeout = commandTimeout;
		client.addListener(this.serverTracker);
	}

	/**
	 * Runs a script on the queue's keys.
	 * @param script the script
	 * @param type what it returns
	 * @param keys the queue's keys
	 * @param args its arguments after the keys
	 * @return the script's answer
	 * @throws RedisQueueException if Redis cannot be reached or refuses
	 */
	<R> R run(LuaScript script, ScriptOutputType type, QueueKeys keys, String... args) {
		try {
			return eval(script, type, keys.all(), args);
		}
		catch (RedisCommandExecutionException ex) {
			if (String.valueOf(ex.getMessage()).contains("WRONGTYPE")) {
				throw wrongType(keys, ex);
			}
			throw failure("script " + script.name() + " failed", ex);
		}
		catch (RedisException ex) {
			throw failure("could not reach Redis", ex);
		}
	}

	/**
	 * Runs a script on keys of the caller's choosing, which must share one hash tag.
	 * @param script the script
	 * @param type what it returns
	 * @param keys the keys
	 * @param args its arguments after the keys
	 * @return the script's answer
	 * @throws RedisQueueException if Redis cannot be reached or refuses
	 */
	<R> R run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
		try {
			return eval(script, type, keys, args);
		}
		catch (RedisCommandExecutionException ex) {
			throw failure("script " + script.name() + " on " + String.join(", ", keys) + " failed", ex);
		}
		catch (RedisException ex) {
			throw failure("could not reach Redis", ex);
		}
	}

	private <R> R eval(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
		RedisScriptingAsyncCommands<String, String> commands = commands();
		try {
			return answer(commands.evalsha(script.sha1(), type, keys, args));
		}
		catch (RedisNoScriptException ex) {
			return answer(commands.eval(script.source(), type, keys, args));
		}
	}

	/**
	 * Waits for a command's answer, at most the command timeout, through interrupts: the
	 * interrupt status is set again once the answer is in.
	 */
	private <R> R answer(RedisFuture<R> future) {
		CompletableFuture<R> answer = future.toCompletableFuture();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return answer.get(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					// Wait on: the script may run (and lease an item) whatever we do.
					interrupted = true;
				}
				catch (TimeoutException ex) {
					answer.cancel(true);
					throw new RedisCommandTimeoutException("Command timed out after " + this.commandTimeout);
				}
				catch (ExecutionException ex) {
					throw (ex.getCause() instanceof RedisException redis) ? redis : new RedisException(ex.getCause());
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Checks that no key of the queue holds a value of another type (a user's own key
	 * under the queue's prefix, say).
	 * @param keys the queue's keys
	 * @throws RedisQueueException naming the key, when one does
	 */
	void checkTypes(QueueKeys keys) {
		String[] expected = new String[QueueKeys.TYPES.size() + 2];
		expected[0] = "";
		expected[1] = keys.channel();
		for (int i = 0; i < QueueKeys.TYPES.size(); i++) {
			expected[i + 2] = QueueKeys.TYPES.get(i);
		}
		List<Object> wrong = run(LuaScript.CHECK_TYPES, ScriptOutputType.MULTI, keys, expected);
		if (!wrong.isEmpty()) {
			throw new RedisQueueException("Queue '" + this.queueName + "' on " + this.server + ": key " + wrong.get(0)
					+ " holds a " + wrong.get(1) + ", not the " + wrong.get(2)
					+ " the queue keeps there; another program uses the queue's key prefix, or the queue's name", null);
		}
	}

	private RedisQueueException wrongType(QueueKeys keys, RedisCommandExecutionException cause) {
		try {
			checkTypes(keys);
		}
		catch (RedisQueueException named) {
			return named;
		}
		return failure("a key of the queue holds the wrong type", cause);
	}

	/**
	 * Opens a pub/sub connection subscribed to {@code channel}.
	 * @param channel the channel
	 * @param onMessage receives each message, on the client's event loop: it must not
	 * block
	 * @return the connection, for closing
	 */
	StatefulRedisPubSubConnection<String, String> subscribe(String channel, Consumer<String> onMessage) {
		try {
			StatefulRedisPubSubConnection<String, String> pubSub = (this.client instanceof RedisClient standalone)
					? standalone.connectPubSub() : ((RedisClusterClient) this.client).connectPubSub();
			pubSub.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String from, String message) {
					onMessage.accept(message);
				}

			});
			pubSub.sync().subscribe(channel);
			return pubSub;
		}
		catch (RedisException ex) {
			throw failure("could not subscribe to " + channel, ex);
		}
	}

	RedisQueueException failure(String what, Throwable cause) {
		return new RedisQueueException(
				"Queue '" + this.queueName + "' on " + this.server + ": " + what + ": " + cause.getMessage(), cause);
	}

	private RedisScriptingAsyncCommands<String, String> commands() {
		RedisScriptingAsyncCommands<String, String> commands = this.commands;
		if (commands != null) {
			return commands;
		}
		synchronized (this.connectLock) {
			if (this.closed) {
				throw new RedisQueueException("Queue '" + this.queueName + "' is closed", null);
			}
			if (this.commands == null) {
				try {
					StatefulConnection<String, String> opened = connect();
					this.connection = opened;
					this.commands = (opened instanceof StatefulRedisConnection<String, String> standalone)
							? standalone.async() : ((StatefulRedisClusterConnection<String, String>) opened).async();
				}
				catch (RedisException ex) {
					throw failure("could not connect", ex);
				}
			}
			return this.commands;
		}
	}

	private StatefulConnection<String, String> connect() {
		if (this.client instanceof RedisClient standalone) {
			return standalone.connect();
		}
		return ((RedisClusterClient) this.client).connect();
	}

	String server() {
		return this.server;
	}

	@Override
	public void close() {
		synchronized (this.connectLock) {
			this.closed = true;
			this.client.removeListener(this.serverTracker);
			StatefulConnection<String, String> open = this.connection;
			if (open != null && open.isOpen()) {
				open.closeAsync();
			}
		}
	}

	@Override
	public String toString() {
		return "RedisConnector[" + this.queueName + " on " + this.server + ", timeout "
				+ Objects.requireNonNull(this.commandTimeout) + "]";
	}

}
