package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of work queues ({@code workqueue.*}): one
 * {@link dev.workqueue.RateLimitingQueue} bean per entry of {@code queues}, and how the
 * workers of each queue run.
 * <p>
 * A queue takes each setting it leaves out from {@code defaults}. Its rate limiter is
 * chosen as a whole: the queue's {@code rate-limiter} if it has one, else the one under
 * {@code defaults}, else Kubernetes client-go's default controller rate limiter. Within a
 * {@code rate-limiter}, each section present (exponential, fast-slow, bucket,
 * item-bucket) adds a limiter; several are combined by taking the longest delay, and
 * {@code max-wait} caps the result. A section is present when it is given, even empty
 * ({@code bucket: {}}); a key left out takes client-go's default.
 * <p>
 * Values are checked at start-up, all at once, and an invalid one fails the start-up with
 * a message naming the full key.
 */
@ConfigurationProperties("workqueue")
public class WorkQueueProperties {

	/**
	 * Whether to create the work queue beans and run their workers.
	 */
	private boolean enabled = true;

	/**
	 * Whether log lines about an item (a worker giving up on it) show the item's text,
	 * cut to 200 characters with control characters escaped. False: a short hash of it
	 * instead, for items that hold personal data.
	 */
	private boolean logItems = true;

	/**
	 * Settings of every queue that does not set its own.
	 */
	private final Defaults defaults = new Defaults();

	/**
	 * Queues by name; the name is also the queue's bean name.
	 */
	private final Map<String, Queue> queues = new LinkedHashMap<>();

	/**
	 * Settings of the queues whose backend is redis.
	 */
	private final Redis redis = new Redis();

	/**
	 * Settings of the queues whose backend is postgres.
	 */
	private final Postgres postgres = new Postgres();

	/**
	 * Observation of worker invocations, for tracing.
	 */
	private final Observation observation = new Observation();

	/**
	 * Worker threads of @QueueWorker methods.
	 */
	private final Workers workers = new Workers();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isLogItems() {
		return this.logItems;
	}

	public void setLogItems(boolean logItems) {
		this.logItems = logItems;
	}

	public Defaults getDefaults() {
		return this.defaults;
	}

	public Map<String, Queue> getQueues() {
		return this.queues;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Postgres getPostgres() {
		return this.postgres;
	}

	public Observation getObservation() {
		return this.observation;
	}

	public Workers getWorkers() {
		return this.workers;
	}

	/**
	 * Worker threads of {@code @QueueWorker} methods.
	 */
	public static class Workers {

		/**
		 * Whether a non-daemon thread keeps the JVM running while the workers run, so
		 * that an application made only of workers stays up until it is stopped (SIGTERM
		 * or context close). False: the worker threads alone do not keep the application
		 * running.
		 */
		private boolean keepAlive = true;

		public boolean isKeepAlive() {
			return this.keepAlive;
		}

		public void setKeepAlive(boolean keepAlive) {
			this.keepAlive = keepAlive;
		}

	}

	/**
	 * Observation of worker invocations.
	 */
	public static class Observation {

		/**
		 * Whether each worker invocation runs in a Micrometer Observation named
		 * workqueue.process (a span per item with Micrometer Tracing). Takes effect when
		 * an ObservationRegistry bean exists.
		 */
		private boolean enabled = true;

		/**
		 * Whether items carry the trace context of their adds to their worker, whose
		 * workqueue.process span is then the child of the first add's span and links to
		 * the later adds' spans. Takes effect when the application has Micrometer
		 * Tracing's Tracer and Propagator beans.
		 */
		private boolean propagation = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isPropagation() {
			return this.propagation;
		}

		public void setPropagation(boolean propagation) {
			this.propagation = propagation;
		}

	}

	/**
	 * Where a queue keeps its items. The property is bound as text and read with
	 * {@link #of(String)}, so that an unknown value is reported with the other invalid
	 * values rather than by the binder alone.
	 */
	public enum Backend {

		/**
		 * In this JVM: fastest, lost on restart, one queue per instance.
		 */
		MEMORY,

		/**
		 * In Redis (workqueue-redis): shared by every instance that names the queue
		 * alike, kept across restarts; the connection is the application's
		 * spring.data.redis.
		 */
		REDIS("workqueue-redis, Lettuce or Spring Boot's Redis support",
				"dev.workqueue:workqueue-redis and spring-boot-starter-data-redis"),

		/**
		 * In a PostgreSQL table (workqueue-postgres): shared by every instance that names
		 * the queue alike, kept across restarts, and added to inside the application's
		 * own transactions; the connection is the application's DataSource.
		 */
		POSTGRES("workqueue-postgres or Spring Boot's JDBC support",
				"dev.workqueue:workqueue-postgres, spring-boot-starter-jdbc and the PostgreSQL driver");

		private final String missing;

		private final String toAdd;

		Backend() {
			this("", "");
		}

		Backend(String missing, String toAdd) {
			this.missing = missing;
			this.toAdd = toAdd;
		}

		/**
		 * Reads a {@code backend} property as a user writes it, ignoring case.
		 * @param value the property's value
		 * @return the backend, or {@code null} if {@code value} names none
		 */
		static @Nullable Backend of(@Nullable String value) {
			for (Backend backend : values()) {
				if (backend.value().equalsIgnoreCase((value != null) ? value.trim() : "")) {
					return backend;
				}
			}
			return null;
		}

		/**
		 * Returns this backend as a user writes it: {@code memory}, {@code redis} or
		 * {@code postgres}.
		 * @return the property value
		 */
		String value() {
			return name().toLowerCase(Locale.ROOT);
		}

		/**
		 * Says what is missing when this backend's classes are not on the class path.
		 * @param queueName the queue that needs the backend
		 * @return the message
		 */
		String notOnClassPath(String queueName) {
			return "Queue '" + queueName + "' has backend " + value() + ", but " + this.missing
					+ " is not on the class path: add " + this.toAdd;
		}

	}

	/**
	 * Settings of the PostgreSQL backend.
	 */
	public static class Postgres {

		/**
		 * Table of the queues, optionally schema-qualified; instances with the same table
		 * and queue name share the queue. Any number of queues share one table.
		 */
		private String table = "workqueue_item";

		/**
		 * How long an item handed out stays leased without renewal; its holder renews it
		 * every third of this, and a crashed holder's items come back after it.
		 */
		private Duration lease = Duration.ofSeconds(30);

		/**
		 * Whether to create the table, its indexes and sequence at start-up when missing,
		 * after the application's own database initialization; never when the
		 * application's migrations (Flyway, Liquibase) run
		 * PostgresWorkQueues.schema(table) themselves.
		 */
		private SchemaInitialization initializeSchema = SchemaInitialization.ALWAYS;

		/**
		 * Whether waiting workers hear of new items through LISTEN on one connection of
		 * their own, opened outside the pool from the application's JDBC connection
		 * details. False (behind a transaction-pooling proxy, where LISTEN cannot work):
		 * they look for work every poll-interval.
		 */
		private boolean listen = true;

		/**
		 * How often a waiting worker looks for work when no notice comes: the whole
		 * mechanism without listen, a safety net with it.
		 */
		private Duration pollInterval = Duration.ofSeconds(1);

		/**
		 * Whether the queues' own commits wait until they are durable. False
		 * (synchronous_commit off): a crash of the database server may lose the last
		 * moments of acknowledged adds and dones (a lost done means the item is processed
		 * again); adds inside the application's transactions follow its own setting.
		 */
		private boolean synchronousCommit = true;

		/**
		 * Who vacuums the queue table: auto (the queues themselves where the server's
		 * autovacuum does not run for it, so that it does not bloat), always (the queues,
		 * besides autovacuum), or never (autovacuum, or the application's own jobs).
		 * Needs the table's ownership.
		 */
		private Vacuum vacuum = Vacuum.AUTO;

		public String getTable() {
			return this.table;
		}

		public void setTable(String table) {
			this.table = table;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public SchemaInitialization getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(SchemaInitialization initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public boolean isListen() {
			return this.listen;
		}

		public void setListen(boolean listen) {
			this.listen = listen;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public boolean isSynchronousCommit() {
			return this.synchronousCommit;
		}

		public void setSynchronousCommit(boolean synchronousCommit) {
			this.synchronousCommit = synchronousCommit;
		}

		public Vacuum getVacuum() {
			return this.vacuum;
		}

		public void setVacuum(Vacuum vacuum) {
			this.vacuum = vacuum;
		}

	}

	/**
	 * Who vacuums the PostgreSQL backend's table (its {@code VacuumPolicy}, named here so
	 * that these properties bind without workqueue-postgres on the class path).
	 */
	public enum Vacuum {

		/** The queues, where autovacuum does not run for the table. */
		AUTO,

		/** The queues, whatever autovacuum does. */
		ALWAYS,

		/** Never the queues. */
		NEVER

	}

	/**
	 * Whether the starter creates the PostgreSQL backend's table at start-up.
	 */
	public enum SchemaInitialization {

		/**
		 * Run PostgresWorkQueues.schema(table) at every start-up: it creates only what is
		 * missing.
		 */
		ALWAYS,

		/**
		 * Create nothing: the application's migrations do.
		 */
		NEVER

	}

	/**
	 * Settings of the Redis backend.
	 */
	public static class Redis {

		/**
		 * Prefix of every key of the queues in Redis; instances with the same prefix and
		 * queue name share the queue.
		 */
		private String keyPrefix = "workqueue:";

		/**
		 * How long an item handed out stays leased without renewal; its holder renews it
		 * every third of this, and a crashed holder's items come back after it.
		 */
		private Duration lease = Duration.ofSeconds(30);

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

	}

	/**
	 * Settings that apply to every queue unless it overrides them.
	 */
	public static class Defaults {

		/**
		 * Worker threads per @QueueWorker method.
		 */
		private int concurrency = 1;

		/**
		 * Retries after an item's first failure before the worker gives up on it; -1 to
		 * retry forever.
		 */
		private int maxRetries = 10;

		/**
		 * How long closing the application waits for queued and in-flight items to be
		 * processed.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(30);

		/**
		 * How long an idle worker waits for an item before it looks at its pause, resize
		 * and stop flags again. A pause or resize ends the wait at once on the queues the
		 * starter builds; on a queue bean of the application's own, within this time.
		 */
		private Duration pollTimeout = Duration.ofSeconds(1);

		/**
		 * Rate limiter of queues that configure none; client-go's default controller rate
		 * limiter when absent.
		 */
		private @Nullable RateLimit rateLimiter;

		/**
		 * Where queues keep their items: memory (in this JVM), redis or postgres (shared
		 * by every instance of the application).
		 */
		private String backend = "memory";

		/**
		 * Whether queues record the two latency timers, workqueue.queue.duration and
		 * workqueue.work.duration. Turn them off for queues that hand off millions of
		 * items a second, where recording them costs more than the hand-off; the counters
		 * and gauges stay.
		 */
		private boolean latencyTimers = true;

		/**
		 * Priorities of queues that do not set their own.
		 */
		private final Priority priority = new Priority();

		/**
		 * Given-up items each queue keeps, for an operator to see, send through again or
		 * delete.
		 */
		private final GivenUp givenUp = new GivenUp();

		public Priority getPriority() {
			return this.priority;
		}

		public GivenUp getGivenUp() {
			return this.givenUp;
		}

		public String getBackend() {
			return this.backend;
		}

		public void setBackend(String backend) {
			this.backend = backend;
		}

		public boolean isLatencyTimers() {
			return this.latencyTimers;
		}

		public void setLatencyTimers(boolean latencyTimers) {
			this.latencyTimers = latencyTimers;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public int getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(int maxRetries) {
			this.maxRetries = maxRetries;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public Duration getPollTimeout() {
			return this.pollTimeout;
		}

		public void setPollTimeout(Duration pollTimeout) {
			this.pollTimeout = pollTimeout;
		}

		public @Nullable RateLimit getRateLimiter() {
			return this.rateLimiter;
		}

		public void setRateLimiter(@Nullable RateLimit rateLimiter) {
			this.rateLimiter = rateLimiter;
		}

	}

	/**
	 * Settings of one queue; each one left out is taken from the defaults.
	 */
	public static class Queue {

		/**
		 * Worker threads per @QueueWorker method of this queue.
		 */
		private @Nullable Integer concurrency;

		/**
		 * Retries after an item's first failure before the worker gives up on it; -1 to
		 * retry forever.
		 */
		private @Nullable Integer maxRetries;

		/**
		 * How long closing the application waits for this queue's queued and in-flight
		 * items to be processed.
		 */
		private @Nullable Duration shutdownTimeout;

		/**
		 * How long an idle worker of this queue waits for an item before it looks at its
		 * pause, resize and stop flags again.
		 */
		private @Nullable Duration pollTimeout;

		/**
		 * Rate limiter deciding the delay of the queue's retries.
		 */
		private @Nullable RateLimit rateLimiter;

		/**
		 * Where this queue keeps its items: memory, redis or postgres.
		 */
		private @Nullable String backend;

		/**
		 * Whether this queue records the two latency timers, workqueue.queue.duration and
		 * workqueue.work.duration; its counters and gauges stay either way.
		 */
		private @Nullable Boolean latencyTimers;

		/**
		 * Priorities of this queue's items; each key left out is taken from the defaults.
		 */
		private final Priority priority = new Priority();

		/**
		 * Given-up items this queue keeps; each key left out is taken from the defaults.
		 */
		private final QueueGivenUp givenUp = new QueueGivenUp();

		public Priority getPriority() {
			return this.priority;
		}

		public QueueGivenUp getGivenUp() {
			return this.givenUp;
		}

		public @Nullable String getBackend() {
			return this.backend;
		}

		public void setBackend(@Nullable String backend) {
			this.backend = backend;
		}

		public @Nullable Boolean getLatencyTimers() {
			return this.latencyTimers;
		}

		public void setLatencyTimers(@Nullable Boolean latencyTimers) {
			this.latencyTimers = latencyTimers;
		}

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable Integer getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(@Nullable Integer maxRetries) {
			this.maxRetries = maxRetries;
		}

		public @Nullable Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(@Nullable Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public @Nullable Duration getPollTimeout() {
			return this.pollTimeout;
		}

		public void setPollTimeout(@Nullable Duration pollTimeout) {
			this.pollTimeout = pollTimeout;
		}

		public @Nullable RateLimit getRateLimiter() {
			return this.rateLimiter;
		}

		public void setRateLimiter(@Nullable RateLimit rateLimiter) {
			this.rateLimiter = rateLimiter;
		}

	}

	/**
	 * Given-up items a queue keeps (those its workers gave up on, and those its codec
	 * could not decode): its newest {@code keep}, each for {@code retention}; on a shared
	 * backend, in the store, for every instance.
	 */
	public static class GivenUp {

		/**
		 * Most given-up items kept, the newest; 0 keeps none. At most 1000000.
		 */
		private int keep = 1000;

		/**
		 * How long a given-up item is kept after it was given up, from 1s to 100 years.
		 */
		private Duration retention = Duration.ofDays(7);

		public int getKeep() {
			return this.keep;
		}

		public void setKeep(int keep) {
			this.keep = keep;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	/**
	 * Given-up items one queue keeps; each key left out is taken from the defaults'
	 * {@link GivenUp}.
	 */
	public static class QueueGivenUp {

		/**
		 * Most given-up items this queue keeps, the newest; 0 keeps none. At most
		 * 1000000.
		 */
		private @Nullable Integer keep;

		/**
		 * How long a given-up item of this queue is kept, from 1s to 100 years.
		 */
		private @Nullable Duration retention;

		public @Nullable Integer getKeep() {
			return this.keep;
		}

		public void setKeep(@Nullable Integer keep) {
			this.keep = keep;
		}

		public @Nullable Duration getRetention() {
			return this.retention;
		}

		public void setRetention(@Nullable Duration retention) {
			this.retention = retention;
		}

	}

	/**
	 * Priorities of a queue's items: whether its bean is a
	 * {@link dev.workqueue.PriorityQueue}, and its starvation guard.
	 */
	public static class Priority {

		/**
		 * Whether the queue is a priority queue: ready items are handed out highest
		 * priority first, and workers may take the priority as a second int parameter.
		 * False when not set here nor under the defaults.
		 */
		private @Nullable Boolean enabled;

		/**
		 * How long an item may stay ready before it is handed out ahead of every item
		 * ready for less, whatever the priorities; absent: priority is strict and a low
		 * priority item may wait for ever.
		 */
		private @Nullable Duration starvationTimeout;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Duration getStarvationTimeout() {
			return this.starvationTimeout;
		}

		public void setStarvationTimeout(@Nullable Duration starvationTimeout) {
			this.starvationTimeout = starvationTimeout;
		}

	}

	/**
	 * Rate limiter of a queue: the sections present, combined by taking the longest
	 * delay, capped by max-wait.
	 */
	public static class RateLimit {

		/**
		 * Per-item exponential backoff: base-delay * 2^failures, up to max-delay.
		 */
		private @Nullable Exponential exponential;

		/**
		 * Per-item fast retries, then slow ones.
		 */
		private @Nullable FastSlow fastSlow;

		/**
		 * One token bucket for all items, limiting the overall retry rate.
		 */
		private @Nullable Bucket bucket;

		/**
		 * One token bucket per item.
		 */
		private @Nullable Bucket itemBucket;

		/**
		 * Longest delay the rate limiter may ask for; no cap when absent.
		 */
		private @Nullable Duration maxWait;

		public @Nullable Exponential getExponential() {
			return this.exponential;
		}

		public void setExponential(@Nullable Exponential exponential) {
			this.exponential = exponential;
		}

		public @Nullable FastSlow getFastSlow() {
			return this.fastSlow;
		}

		public void setFastSlow(@Nullable FastSlow fastSlow) {
			this.fastSlow = fastSlow;
		}

		public @Nullable Bucket getBucket() {
			return this.bucket;
		}

		public void setBucket(@Nullable Bucket bucket) {
			this.bucket = bucket;
		}

		public @Nullable Bucket getItemBucket() {
			return this.itemBucket;
		}

		public void setItemBucket(@Nullable Bucket itemBucket) {
			this.itemBucket = itemBucket;
		}

		public @Nullable Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(@Nullable Duration maxWait) {
			this.maxWait = maxWait;
		}

	}

	/**
	 * Per-item exponential backoff, as client-go's ItemExponentialFailureRateLimiter.
	 */
	public static class Exponential {

		/**
		 * Delay after an item's first failure.
		 */
		private Duration baseDelay = Duration.ofMillis(5);

		/**
		 * Longest delay.
		 */
		private Duration maxDelay = Duration.ofSeconds(1000);

		/**
		 * Largest part of each delay cut at random, in [0, 1], so that items failing
		 * together do not retry in lockstep: each delay d is drawn uniformly from [d * (1
		 * - jitter), d]. Not in client-go; 0 keeps its exact delays.
		 */
		private double jitter;

		public Duration getBaseDelay() {
			return this.baseDelay;
		}

		public void setBaseDelay(Duration baseDelay) {
			this.baseDelay = baseDelay;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			this.jitter = jitter;
		}

	}

	/**
	 * Per-item fast-then-slow retries, as client-go's ItemFastSlowRateLimiter. client-go
	 * has no defaults for it; these retry a few blips quickly (5 times after 5 ms), then
	 * settle at one retry every 10 seconds.
	 */
	public static class FastSlow {

		/**
		 * Delay of an item's first max-fast-attempts retries.
		 */
		private Duration fastDelay = Duration.ofMillis(5);

		/**
		 * Delay of an item's later retries.
		 */
		private Duration slowDelay = Duration.ofSeconds(10);

		/**
		 * Number of retries of an item that wait fast-delay.
		 */
		private int maxFastAttempts = 5;

		public Duration getFastDelay() {
			return this.fastDelay;
		}

		public void setFastDelay(Duration fastDelay) {
			this.fastDelay = fastDelay;
		}

		public Duration getSlowDelay() {
			return this.slowDelay;
		}

		public void setSlowDelay(Duration slowDelay) {
			this.slowDelay = slowDelay;
		}

		public int getMaxFastAttempts() {
			return this.maxFastAttempts;
		}

		public void setMaxFastAttempts(int maxFastAttempts) {
			this.maxFastAttempts = maxFastAttempts;
		}

	}

	/**
	 * Token bucket: one for all items (bucket, as client-go's BucketRateLimiter) or one
	 * per item (item-bucket).
	 */
	public static class Bucket {

		/**
		 * Tokens added per second; Infinity for no limit.
		 */
		private double qps = 10;

		/**
		 * Capacity of the bucket: how many retries may go at once.
		 */
		private int burst = 100;

		public double getQps() {
			return this.qps;
		}

		public void setQps(double qps) {
			this.qps = qps;
		}

		public int getBurst() {
			return this.burst;
		}

		public void setBurst(int burst) {
			this.burst = burst;
		}

	}

}
