package dev.workqueue.redis;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import dev.workqueue.store.SharedResource;

/**
 * What every queue and limiter on one Lettuce client shares: one connection for commands,
 * one for pub/sub, on a standalone Redis one for the consumers' blocking wait
 * ({@link WakeWatch}), and one timer thread per clock ({@link TimerThread}), however many
 * queues there are. Queue handles {@linkplain #acquire take} the link and
 * {@linkplain #release give it back}; the last to give it back closes the connections.
 * Limiters use the link of their client without counting: one used after every queue
 * closed reopens the command connection, which then lives until the client shuts down.
 * <p>
 * Commands are multiplexed on the connection (Lettuce pipelines concurrent callers), so
 * no caller waits for another's round trip, and no blocking command ever runs on it (the
 * wake watch blocks on a connection of its own). Scripts run with {@code EVALSHA}, and
 * once per server with {@code EVAL} when it answers {@code NOSCRIPT}. Pub/sub messages
 * are dispatched by channel to the queues' listeners, on the client's event loop. Lettuce
 * reconnects both connections by itself, and resubscribes.
 * <p>
 * The registry ({@link SharedResource}, by client) holds a link while queues use it, and
 * while its command connection is open: the client's {@code shutdown()} closes that
 * connection, which takes the link out (a client only limiters used included), so a
 * shut-down client is never kept.
 * <p>
 * Thread-safe: the registry counts the queues, {@code this} guards the connections; the
 * lock order is {@code this}, then the registry's.
 */
final class RedisLink {

	private static final SharedResource<AbstractRedisClient, RedisLink> links = new SharedResource<>(RedisLink::close);

	private final AbstractRedisClient client;

	private final RedisConnectionStateListener serverTracker = new RedisConnectionStateListener() {

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
			RedisLink.this.server = String.valueOf(socketAddress);
		}

	};

	private final Map<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();

	/** Guarded by this; {@code null} until first used, and on a Redis Cluster. */
	private WakeWatch wakeWatch;

	/** Where the client last connected; until it has, a placeholder. */
	private volatile String server = "Redis";

	private volatile StatefulConnection<String, String> connection;

	/** Whether the application shut the client down under the link. */
	private volatile boolean clientShutDown;

	/** Guarded by this. */
	private StatefulRedisPubSubConnection<String, String> pubSub;

	/**
	 * The client is a {@link RedisClient} or a {@link RedisClusterClient}: the builders
	 * check it.
	 */
	private RedisLink(AbstractRedisClient client) {
		this.client = client;
	}

	/**
	 * Returns the link of {@code client}, counting one more queue that uses it.
	 * @param client the application's client
	 * @return its link
	 */
	static RedisLink acquire(AbstractRedisClient client) {
		return links.acquire(client, RedisLink::open);
	}

	/**
	 * Returns the link of {@code client} without counting a user: for limiters.
	 * @param client the application's client
	 * @return its link
	 */
	static RedisLink of(AbstractRedisClient client) {
		return links.use(client, RedisLink::open);
	}

	private static RedisLink open(AbstractRedisClient client) {
		RedisLink link = new RedisLink(client);
		client.addListener(link.serverTracker);
		return link;
	}

	/**
	 * Gives the link back; the last queue to do so closes its connections.
	 */
	void release() {
		links.release(this);
	}

	/**
	 * Takes the link out of the registry, if it is still the client's (and, if
	 * {@code unused}, no queue uses it).
	 */
	private void unregister(boolean unused) {
		if (unused ? links.evictUnused(this.client, this) : links.evict(this.client, this)) {
			this.client.removeListener(this.serverTracker);
		}
	}

	/** Whether the registry holds a link of {@code client}; for tests. */
	static boolean isRegistered(AbstractRedisClient client) {
		return links.peek(client) != null;
	}

	/**
	 * Sends a script; its answer completes the future, or its failure (the client's
	 * exception, or a {@link ClientShutDownException} once the client was shut down)
	 * fails it.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return the answer to come
	 */
	<R> CompletableFuture<R> send(LuaScript script, String[] keys, String... args) {
		StatefulConnection<String, String> connection = commands();
		CompletableFuture<R> sha = dispatchOrShutDown(connection,
				QueueCommand.script(CommandType.EVALSHA, script.sha1(), script.output(), keys, args));
		return sha.exceptionallyCompose((ex) -> {
			if (!(unwrap(ex) instanceof RedisNoScriptException)) {
				return failed(connection, ex);
			}
			CompletableFuture<R> eval = dispatch(connection,
					QueueCommand.script(CommandType.EVAL, script.source(), script.output(), keys, args));
			return eval.exceptionallyCompose((again) -> failed(connection, again));
		});
	}

	/**
	 * Reads the server's time ({@code TIME}), for {@link ClockAnchor}.
	 * @return the answer to come: the seconds and the microseconds, as Redis says them
	 */
	CompletableFuture<List<String>> time() {
		StatefulConnection<String, String> connection = commands();
		return dispatchOrShutDown(connection, QueueCommand.time()).exceptionallyCompose((ex) -> failed(connection, ex));
	}

	/** The command connection, unless the client was found shut down. */
	private StatefulConnection<String, String> commands() {
		if (this.clientShutDown) {
			throw new ClientShutDownException(null);
		}
		return connection();
	}

	/** Dispatches a command, read as {@link #closedByTheClient} says if it is refused. */
	private <R> CompletableFuture<R> dispatchOrShutDown(StatefulConnection<String, String> connection,
			QueueCommand<R> command) {
		try {
			return dispatch(connection, command);
		}
		catch (RuntimeException ex) {
			throw closedByTheClient(connection) ? new ClientShutDownException(ex) : ex;
		}
	}

	/** A failed answer, read as {@link #closedByTheClient} says. */
	private <R> CompletableFuture<R> failed(StatefulConnection<String, String> connection, Throwable ex) {
		Throwable cause = unwrap(ex);
		return CompletableFuture
			.failedFuture((closedByTheClient(connection) && !(cause instanceof ClientShutDownException))
					? new ClientShutDownException(cause) : cause);
	}

	/**
	 * What a failure of a command means, whether the connection refused to send it or its
	 * answer failed. The link closes its connection only when the last queue gives it
	 * back (and forgets it first), and Lettuce reconnects a dropped one by itself without
	 * closing it: a failure on the link's connection once that connection is closed is
	 * the application's shutdown of the client. Lettuce refuses such a command through
	 * its answer ("Connection is closed"), or, once the client's event loops are gone, by
	 * throwing; a command under way when the connection closed fails too. The connection
	 * is closed before any of these, so the check never comes too early. From then on the
	 * link sends nothing more.
	 */
	private boolean closedByTheClient(StatefulConnection<String, String> connection) {
		if (connection != this.connection || !((RedisChannelHandler<?, ?>) connection).isClosed()) {
			return false;
		}
		this.clientShutDown = true;
		return true;
	}

	/**
	 * Sends a command as Lettuce's asynchronous API does (which takes the command's trace
	 * parent, if tracing is on, from the sending thread), keeping the command a
	 * {@link QueueCommand} for tracing set-ups to recognise.
	 */
	static <R> CompletableFuture<R> dispatch(StatefulConnection<String, String> connection, QueueCommand<R> command) {
		AsyncCommand<String, String, R> async = new AsyncCommand<>(command);
		RedisCommand<String, String, R> dispatched = connection.dispatch(async);
		return (dispatched instanceof AsyncCommand<String, String, R> sent) ? sent : async;
	}

	/**
	 * Waits for an answer, at most {@code timeout}, through interrupts: for the calls
	 * that cannot throw {@link InterruptedException} (adds, {@code done}), whose change
	 * goes through whether or not the caller waits. The interrupt status is set again
	 * once the answer is in.
	 * @param answer the answer to come
	 * @param timeout how long to wait
	 * @return the answer
	 * @throws RedisException the client's exception, or a
	 * {@link RedisCommandTimeoutException}
	 */
	static <R> R answer(CompletableFuture<R> answer, Duration timeout) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return answerInterruptibly(answer, timeout);
				}
				catch (InterruptedException ex) {
					interrupted = true;
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
	 * Waits for an answer, at most {@code timeout}.
	 * @param answer the answer to come
	 * @param timeout how long to wait
	 * @return the answer
	 * @throws InterruptedException if the caller is interrupted first
	 * @throws RedisException the client's exception, or a
	 * {@link RedisCommandTimeoutException}
	 */
	static <R> R answerInterruptibly(CompletableFuture<R> answer, Duration timeout) throws InterruptedException {
		try {
			return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new RedisCommandTimeoutException("timed out after " + timeout);
		}
		catch (ExecutionException ex) {
			Throwable cause = unwrap(ex);
			throw (cause instanceof RedisException redis) ? redis : new RedisException(cause);
		}
	}

	static Throwable unwrap(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * Subscribes a listener to a channel, on the shared pub/sub connection, opened on
	 * first use. A failed subscription closes what it opened.
	 * @param channel the channel
	 * @param listener receives each message, on the client's event loop: it must not
	 * block
	 * @param timeout how long to wait for the subscription
	 * @throws RedisException the client's exception if it fails
	 */
	synchronized void subscribe(String channel, Consumer<String> listener, Duration timeout) {
		if (this.pubSub == null) {
			this.pubSub = (this.client instanceof RedisClient standalone) ? standalone.connectPubSub()
					: ((RedisClusterClient) this.client).connectPubSub();
			this.pubSub.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String from, String message) {
					List<Consumer<String>> subscribed = RedisLink.this.listeners.get(from);
					if (subscribed != null) {
						subscribed.forEach((each) -> each.accept(message));
					}
				}

			});
		}
		List<Consumer<String>> subscribed = this.listeners.computeIfAbsent(channel,
				(key) -> new CopyOnWriteArrayList<>());
		subscribed.add(listener);
		if (subscribed.size() > 1) {
			return;
		}
		try {
			answer(dispatch(this.pubSub, QueueCommand.subscription(CommandType.SUBSCRIBE, channel)), timeout);
		}
		catch (RuntimeException ex) {
			unsubscribe(channel, listener);
			throw ex;
		}
	}

	/**
	 * Removes a listener; the last one of a channel unsubscribes it, and the last one of
	 * all closes the pub/sub connection.
	 * @param channel the channel
	 * @param listener the listener
	 */
	synchronized void unsubscribe(String channel, Consumer<String> listener) {
		List<Consumer<String>> subscribed = this.listeners.get(channel);
		if (subscribed == null || !subscribed.remove(listener)) {
			return;
		}
		if (subscribed.isEmpty()) {
			this.listeners.remove(channel);
			if (this.pubSub != null && this.pubSub.isOpen()) {
				dispatch(this.pubSub, QueueCommand.subscription(CommandType.UNSUBSCRIBE, channel));
			}
		}
		if (this.listeners.isEmpty() && this.pubSub != null) {
			closePubSub();
		}
	}

	/**
	 * Returns where the consumers of every queue on this link wait for wake-ups, on a
	 * standalone Redis: its connection opens when a consumer first waits.
	 * @return the watch, or {@code null} on a Redis Cluster (the consumers wait for
	 * pub/sub notices)
	 */
	synchronized WakeWatch wakeWatch() {
		if (this.wakeWatch == null && this.client instanceof RedisClient standalone) {
			// The connection open, if any: the watch pushes from the event loop, where
			// nothing connects, and a link closing opens nothing again.
			this.wakeWatch = new WakeWatch(standalone, () -> this.connection);
		}
		return this.wakeWatch;
	}

	String server() {
		return this.server;
	}

	/**
	 * Names the connection's user, for permission errors.
	 * @param timeout how long to wait for {@code ACL WHOAMI}
	 * @return {@code user 'name'}, or a placeholder when Redis does not say
	 */
	String user(Duration timeout) {
		try {
			StatefulConnection<String, String> open = connection();
			CompletableFuture<String> whoami = (open instanceof StatefulRedisConnection<String, String> standalone)
					? standalone.async().aclWhoami().toCompletableFuture()
					: ((StatefulRedisClusterConnection<String, String>) open).async().aclWhoami().toCompletableFuture();
			return "user '" + answer(whoami, timeout) + "'";
		}
		catch (RuntimeException ex) {
			return "the connection's user";
		}
	}

	AbstractRedisClient client() {
		return this.client;
	}

	/** The command connection, opened on first use. */
	private StatefulConnection<String, String> connection() {
		StatefulConnection<String, String> connection = this.connection;
		if (connection != null) {
			return connection;
		}
		synchronized (this) {
			if (this.connection == null) {
				StatefulConnection<String, String> opened;
				try {
					opened = (this.client instanceof RedisClient standalone) ? standalone.connect()
							: ((RedisClusterClient) this.client).connect();
				}
				catch (RuntimeException ex) {
					// No connection to close later: a link only limiters use leaves now.
					unregister(true);
					throw ex;
				}
				// Closed by the client's shutdown (or by this link): the link leaves the
				// registry then. Both kinds of connection are channel handlers.
				((RedisChannelHandler<?, ?>) opened).registerCloseables(new ArrayList<>(), () -> unregister(false));
				this.connection = opened;
			}
			return this.connection;
		}
	}

	/** Closes the link once the last queue gave it back, and the registry forgot it. */
	private synchronized void close() {
		// Already gone if the client's shutdown took the link out first: removing it
		// again is harmless.
		this.client.removeListener(this.serverTracker);
		if (this.wakeWatch != null) {
			// First: a wake-up it pops while closing goes back through the command
			// connection, still open.
			this.wakeWatch.close();
			this.wakeWatch = null;
		}
		StatefulConnection<String, String> open = this.connection;
		this.connection = null;
		if (open != null && open.isOpen()) {
			open.closeAsync();
		}
		if (this.pubSub != null) {
			closePubSub();
			this.listeners.clear();
		}
	}

	/** Closes the pub/sub connection, unless the client's shutdown closed it already. */
	private synchronized void closePubSub() {
		if (!this.clientShutDown) {
			this.pubSub.closeAsync();
		}
		this.pubSub = null;
	}

	@Override
	public String toString() {
		return "RedisLink[" + this.server + "]";
	}

	/**
	 * The application shut the client down while a queue still uses it: no command can be
	 * sent any more.
	 */
	static final class ClientShutDownException extends RedisException {

		private static final long serialVersionUID = 1L;

		ClientShutDownException(Throwable cause) {
			super("the Lettuce client was shut down", cause);
		}

	}

}
