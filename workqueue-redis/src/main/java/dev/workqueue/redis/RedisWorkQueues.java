package dev.workqueue.redis;

import java.time.Duration;
import java.util.Objects;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.protocol.RedisCommand;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.spi.GuardedMetrics;
import dev.workqueue.spi.PriorityHandle;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.store.ItemTaker;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.OptionChecks;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.SharedQueueBuilder;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * Creates work queues kept in Redis and shared by every instance that builds one with the
 * same key prefix and name: the entry point of the Redis backend. <pre class="code">
 * RedisClient client = RedisClient.create("redis://localhost:6379");
 * RedisWorkQueues.Builder&lt;String&gt; orders = RedisWorkQueues.builder(client, ItemCodec.strings())
 *     .name("orders");
 * RateLimitingQueue&lt;String&gt; queue = orders
 *     .buildRateLimitingQueue(orders.rateLimiters().defaultControllerRateLimiter());
 * </pre> The queues have the core's interfaces and rules ({@link WorkQueue}), which hold
 * across all the instances, and these of their own:
 * <ul>
 * <li>{@code get} leases the item (30 seconds by default), renewed in the background
 * while this instance holds it. An item whose lease runs out, because its holder crashed,
 * paused or lost Redis, goes back to the queue, and the former holder's {@code done}
 * changes nothing: at-least-once, never two live holders.</li>
 * <li>Delays live in Redis, timed by the Redis server's clock (so instances with skewed
 * clocks agree), or by the {@link Builder#clock(Clock) clock} given to the builder (a
 * {@code FakeClock} in tests), anchored on the server's time once, so that every instance
 * given one agrees. The queue keeps its kind of clock with its data: a handle built with
 * the other kind is refused.</li>
 * <li>{@code shutDown} stops this instance only: it takes no more items and leaves queued
 * and delayed ones in Redis for the others.</li>
 * <li>A Redis that cannot be reached, or does not answer in time, makes {@code add},
 * {@code get} and the others throw {@link RedisQueueException}, naming the queue, the
 * server and the {@linkplain RedisQueueException#reason() reason} (a timeout says the
 * command may have run); the queue's timed work retries by itself. Every script is safe
 * to run twice, as Lettuce runs a command again whose answer was lost with the
 * connection: a get sent again answers the items it leased. {@code poll(t)} returns
 * within {@code t} plus one command timeout. A get whose answer comes after the timeout,
 * or never, leases nothing for good: the late answer's item is handed back, and an answer
 * lost with the connection is looked for and handed back.</li>
 * <li>{@code add}, {@code addAfter} and {@code addRateLimited} after {@code shutDown} are
 * ignored, never an exception, from any thread.</li>
 * <li><b>Connections.</b> Every queue and limiter built on one client shares two
 * connections of that client, one for commands and one for pub/sub, and one timer thread,
 * however many queues there are; the last queue shut down closes them. The timer thread
 * runs no application code: the metrics hook's {@code stalled} runs on a thread of its
 * own, also one per client, so that a slow hook never delays the renewals of any queue.
 * Shut the queues down before the client: a handle whose client is shut down under it
 * says so once, stops its timed work (the leases it holds run out, and the items go to
 * the other instances), and its calls throw {@link RedisQueueException}.</li>
 * <li><b>Bad input</b> loses nothing: a key under the prefix holding another type, or a
 * missing permission (EVALSHA, EVAL, PUBLISH, SUBSCRIBE), fails the build naming it; at
 * run time each script checks the types of the keys it writes before its first write, and
 * when out of memory Redis refuses a script that may grow the memory (the adds) before it
 * starts, so nothing is ever half-written, while it runs those consumers need to drain
 * the queue ({@code get}, {@code done}, hand-backs, renewals). Huge delays are clamped to
 * 142 years. Payloads the codec cannot decode are given up on: kept as given-up records
 * with their reason, bounded by {@link Builder#givenUp(int, Duration)}.</li>
 * </ul>
 * <b>Priority queues</b> ({@link Builder#buildPriorityQueue}) keep
 * {@link PriorityQueue}'s rules across the instances, with the same leases, fencing and
 * shutdown: their ready items are a sorted set ordered exactly by priority, then by the
 * order they became ready, and {@code get} replies with the priority. A plain queue and a
 * priority queue must not share a prefix and name.
 * <p>
 * The queue behind each one built implements {@link dev.workqueue.store.SharedQueue} and
 * {@link dev.workqueue.spi.PollerFactory} (find them with {@code capability(...)}, or a
 * poller with {@link dev.workqueue.spi.Pollers#of}). What survives what: everything is in
 * Redis, so a restart of any or every instance loses nothing; a restart of Redis keeps
 * what its persistence kept (with {@code appendonly yes} and
 * {@code appendfsync everysec}, all but about the last second of changes).
 */
public final class RedisWorkQueues {

	private RedisWorkQueues() {
	}

	/**
	 * Returns a builder of queues on a standalone or Sentinel-managed Redis.
	 * @param client the application's client; the queues share two connections of it with
	 * every other queue and limiter on it, and never shut it down
	 * @param codec turns items into their identity in Redis, and back
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder(RedisClient client, ItemCodec<T> codec) {
		return builder((AbstractRedisClient) client, codec);
	}

	/**
	 * Returns a builder of queues on a Redis Cluster. Each queue's keys share one hash
	 * tag, so a queue lives on one node; different queues spread over the cluster.
	 * @param client the application's cluster client
	 * @param codec turns items into their identity in Redis, and back
	 * @param <T> the item type
	 * @return a new builder
	 */
	public static <T> Builder<T> builder(RedisClusterClient client, ItemCodec<T> codec) {
		return builder((AbstractRedisClient) client, codec);
	}

	/**
	 * Returns a builder of queues on whichever Redis the client reaches: standalone or
	 * Sentinel-managed for a {@link RedisClient}, a cluster for a
	 * {@link RedisClusterClient}. For callers that hold a client of either kind.
	 * @param client a {@link RedisClient} or a {@link RedisClusterClient}
	 * @param codec turns items into their identity in Redis, and back
	 * @param <T> the item type
	 * @return a new builder
	 * @throws IllegalArgumentException if the client is of another kind
	 */
	public static <T> Builder<T> builder(AbstractRedisClient client, ItemCodec<T> codec) {
		return new Builder<>(new RedisOptions<>(client, codec));
	}

	/**
	 * Returns whether a Lettuce command is one of the queues and limiters of this library
	 * (a script call, or a subscription to a queue's channel): for a tracing set-up that
	 * keeps the backend's own work out of the traces (the Spring starter's drops such a
	 * command's observation when no observation was current where it was sent, so that a
	 * worker's wait, the timer's ticks, lease renewals, sweeps and gauge reads start no
	 * trace, while an add made in a request still shows in the request's trace).
	 * @param command a command, as Lettuce's {@code LettuceObservationContext} holds it
	 * @return whether this library sent it
	 */
	public static boolean isQueueCommand(RedisCommand<?, ?, ?> command) {
		return QueueCommand.isQueueCommand(command);
	}

	/**
	 * Returns whether a Lettuce command is a read of this library's queues (their stats,
	 * ready levels and the like, as gauges, health checks and the Actuator endpoint read
	 * them): such a command makes no trace even when sent inside an observation, as a
	 * health request is (contract: gauge reads make no traces).
	 * @param command a command, as Lettuce's {@code LettuceObservationContext} holds it
	 * @return whether it is one of the library's reads
	 */
	public static boolean isReadCommand(RedisCommand<?, ?, ?> command) {
		return QueueCommand.isReadCommand(command);
	}

	/**
	 * Configures and builds Redis work queues. The name is required; every other option
	 * has a default: key prefix {@code workqueue:}, 30 second leases, the Redis server's
	 * clock, no metrics, 5 second command timeout, 10 second heartbeat, given-up records
	 * bounded to 1000 and 7 days. Each {@code build...} call creates a new handle on the
	 * shared queue. Not thread-safe. What is the Redis backend's own:
	 * <ul>
	 * <li>The trace context of an add ({@link #traceContextSource}) is kept in the field
	 * {@code 't'}+item of the queue's per-item hash (the {@code priorities} key), written
	 * by the add's script; an add without a context sends what it would without a
	 * source.</li>
	 * <li>A plain queue and a priority queue may not share a prefix and name: their ready
	 * items are kept apart, so neither would see the other's, and a build that finds the
	 * other kind's ready items under the name fails with a {@link RedisQueueException}
	 * naming the key, as does one that finds a key holding another type.</li>
	 * </ul>
	 *
	 * @param <T> the item type
	 */
	public static final class Builder<T> extends SharedQueueBuilder<T, Builder<T>> {

		/** The shortest command timeout accepted. */
		public static final Duration MIN_COMMAND_TIMEOUT = Duration.ofMillis(10);

		/** The shortest heartbeat accepted. */
		public static final Duration MIN_HEARTBEAT = Duration.ofMillis(100);

		/** What the queue has in common with its limiters. */
		private final RedisOptions<T> options;

		private Duration heartbeat = Duration.ofSeconds(10);

		private Builder(RedisOptions<T> options) {
			super("RedisPriorityQueue");
			this.options = options;
		}

		/**
		 * Sets the queue's name (required): instances with the same prefix and name share
		 * the queue. It becomes the hash tag of the queue's keys, so it may not contain
		 * braces.
		 * @param name the name, not empty
		 * @return this builder
		 */
		public Builder<T> name(String name) {
			this.options.name(name);
			return this;
		}

		/**
		 * Sets the prefix of the queue's keys (default {@code workqueue:}).
		 * @param prefix the prefix, without braces
		 * @return this builder
		 */
		public Builder<T> keyPrefix(String prefix) {
			this.options.keyPrefix(prefix);
			return this;
		}

		/**
		 * Sets the clock of delays, leases and waits. By default delays and leases use
		 * the Redis server's clock and waits the system clock; a clock given here is used
		 * for all three, and every instance sharing the queue must then be given one
		 * (tests step a {@code FakeClock}). Its readings count from an arbitrary origin,
		 * so they are anchored on the server's time once, before the handle's first
		 * script (one {@code TIME} read per clock in a JVM): the scripts get that time
		 * plus what the clock measured since. The queue keeps its kind of clock (the
		 * server's, or one given here) with its data, set by its first handle: a build of
		 * the other kind fails with an {@link IllegalStateException} naming both, as does
		 * one that meets another format ({@code docs/redis.md}, "Upgrading").
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder<T> clock(Clock clock) {
			this.options.clock(clock);
			return this;
		}

		/**
		 * Sets how long a command may take before it fails with a
		 * {@link RedisQueueException} (default 5 seconds, at least 10 ms).
		 * @param commandTimeout the timeout
		 * @return this builder
		 */
		public Builder<T> commandTimeout(Duration commandTimeout) {
			this.options.commandTimeout(commandTimeout);
			return this;
		}

		/**
		 * Sets the longest time the queue's thread sleeps without looking at Redis
		 * (default 10 seconds, as client-go's waiting loop; at least 100 ms): insurance
		 * against a lost notice, and the one script per heartbeat an idle queue costs.
		 * @param heartbeat the heartbeat
		 * @return this builder
		 */
		public Builder<T> heartbeat(Duration heartbeat) {
			this.heartbeat = OptionChecks.atLeast("heartbeat", heartbeat, MIN_HEARTBEAT);
			return this;
		}

		/**
		 * Bounds the records of the payloads the codec cannot decode: the previous
		 * release kept them in a dead-letter list, this one keeps them as given-up
		 * records, with every other item given up, within one bound: this is
		 * {@link #givenUp(int, Duration) givenUp(maxRecords, timeToLive)}, each record
		 * kept for {@code timeToLive} after it was given up (the list expired that long
		 * after its last record came). The arguments are checked as they were, so that a
		 * value the previous release accepted is accepted, and none that it refused.
		 * @param maxRecords the most records kept, from 1 to
		 * {@value GivenUpBound#MAX_KEEP}
		 * @param timeToLive how long a record is kept, from 1 second to 100 years
		 * @return this builder
		 * @throws IllegalArgumentException naming {@code maxRecords} or
		 * {@code timeToLive} when out of range
		 * @deprecated since 0.1.0, for removal: use {@link #givenUp(int, Duration)},
		 * which also takes 0 (keep none)
		 */
		@Deprecated(since = "0.1.0", forRemoval = true)
		public Builder<T> deadLetters(int maxRecords, Duration timeToLive) {
			if (maxRecords < 1 || maxRecords > GivenUpBound.MAX_KEEP) {
				throw new IllegalArgumentException(
						"maxRecords must be from 1 to " + GivenUpBound.MAX_KEEP + ", was " + maxRecords);
			}
			Objects.requireNonNull(timeToLive, "timeToLive");
			if (timeToLive.compareTo(Duration.ofSeconds(1)) < 0 || timeToLive.compareTo(Duration.ofDays(36_525)) > 0) {
				throw new IllegalArgumentException("timeToLive must be from 1s to 100 years, was " + timeToLive);
			}
			return givenUp(maxRecords, timeToLive);
		}

		/**
		 * Returns a builder of the shared rate limiters of the queue this builder builds:
		 * on the same client, with the same codec, name, key prefix, clock and command
		 * timeout, as set on this builder so far (later changes to either builder do not
		 * reach the other).
		 * @return a new builder of limiters
		 */
		@Override
		public RedisRateLimiters.Builder<T> rateLimiters() {
			return new RedisRateLimiters.Builder<>(this.options.copy());
		}

		@Override
		protected PriorityHandle<T> newHandle(boolean prioritized) {
			return handle(prioritized ? QueueLayout.PRIORITY : QueueLayout.LIST);
		}

		/**
		 * Makes the parts of a handle, each with what it uses, then the handle, and
		 * starts its timed work.
		 */
		private RedisWorkQueue<T> handle(QueueLayout layout) {
			String name = this.options.requiredName("instances with the same name share the queue");
			Clock clock = (this.options.clock() != null) ? this.options.clock() : Clock.system();
			RedisLink link = RedisLink.acquire(this.options.client);
			QueueScripts scripts = new QueueScripts(link, name, QueueKeys.of(this.options.keyPrefix(), name), layout,
					clock, this.options.clock() == null, this.options.commandTimeout());
			WorkQueueMetrics metrics = GuardedMetrics.guard(metrics(), name);
			String id = ClockKind.of(this.options.clock() == null).newHandleId();
			LeaseBook<T, RedisLease> book = new LeaseBook<>();
			WakeHandOff handOff = new WakeHandOff();
			ReadySignal signal = new ReadySignal(clock, handOff, null);
			TimerThread.Slot timerSlot = TimerThread.slot(link, clock);
			HandleLifecycle lifecycle = new HandleLifecycle(timerSlot::wake);
			RedisInspection inspection = new RedisInspection(scripts, id, lease(), givenUp());
			QueueTimer timer = new QueueTimer(scripts, metrics, book, lifecycle, signal, handOff, clock, timerSlot, id,
					lease(), this.heartbeat, inspection);
			LeaseReleases<T, RedisLease> releases = new LeaseReleases<>(new ReleaseScripts(scripts), book, lifecycle,
					metrics, clock, timerSlot::wake);
			ItemClaims<T> claims = new ItemClaims<>(this.options.codec, scripts, new LeaseTokens(id), releases,
					lifecycle, lease(), starvationTimeout(), givenUp());
			ItemTaker<T, RedisLease> taker = new ItemTaker<>(this.options.codec, claims, book, releases, signal,
					lifecycle, metrics, clock, Nanos.of(lease()));
			HandleScripts driver = new HandleScripts(name, scripts, new GroupedAdds(scripts), timer, inspection);
			RedisWorkQueue<T> queue = new RedisWorkQueue<>(name, this.options.codec, driver, clock, metrics, book,
					signal, lifecycle, taker, releases, timer.work(),
					TraceContextSource.guard(traceContextSource(), name));
			timer.start();
			return queue;
		}

	}

}
