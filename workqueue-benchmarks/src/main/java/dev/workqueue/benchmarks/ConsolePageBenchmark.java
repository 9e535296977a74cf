package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.WorkQueues;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.QueueInspector;
import dev.workqueue.postgres.PostgresWorkQueues;
import dev.workqueue.redis.RedisWorkQueues;

/**
 * Issue 40's figure: what the console reads from a queue's backend to answer the page of
 * a queue with {@value #WAITING} waiting items, on every backend. On the request path
 * ({@link #page}): the first 50 items of each state (ready, processing, waiting, given
 * up), the given-up count and the pause flag, as the console's {@code GET
 * {path}/api/queues/{name}} reads them; the page's figures come from the latest reading
 * of the console's background refresher, measured apart ({@link #figures}:
 * {@code stats()}, once a second per instance while the console is watched). And the
 * exact lookup of one key among the million ({@link #find}). The HTTP exchange and the
 * JSON writing of the answer are not in it: they do not grow with the queue (a page holds
 * at most 200 items).
 * <p>
 * Each trial fills a fresh queue: in memory with {@code addAfter}; on Redis with
 * {@code addAfter} from 16 threads; on PostgreSQL with one {@code INSERT ... SELECT} of
 * queued rows due in an hour or more (a million commits would take minutes), in the
 * table's own format, then {@code ANALYZE}. Then 20 items are added ready, 10 handed out
 * (processing, held through the trial) and 50 given up, so that no list is empty. The
 * in-memory queue records no metrics, so it does not date its hand-outs and finds its
 * processing items by a scan of the table: its worst case (the starter's queues with
 * Micrometer are dated).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms4g", "-Xmx4g" })
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 10)
public class ConsolePageBenchmark {

	static final int WAITING = 1_000_000;

	private static final int PAGE = 50;

	@Param({ "memory", "redis", "postgres" })
	public String backend;

	private DelayingQueue<String> queue;

	private QueueInspector inspector;

	private AutoCloseable resources;

	private final List<String> held = new ArrayList<>();

	@Setup(Level.Trial)
	public void fill() throws Exception {
		switch (this.backend) {
			case "memory" -> fillMemory();
			case "redis" -> fillRedis();
			case "postgres" -> fillPostgres();
			default ->
				throw new IllegalArgumentException("backend must be memory, redis or postgres, was " + this.backend);
		}
		this.inspector = this.queue.capability(QueueInspector.class).orElseThrow();
		for (int i = 0; i < 20; i++) {
			this.queue.add("ready-" + i);
		}
		for (int i = 0; i < 10; i++) {
			this.held.add(this.queue.get());
		}
		for (int i = 0; i < PAGE; i++) {
			this.inspector.keepGivenUp("given-up-" + i, 11, "java.lang.IllegalStateException: downstream said 503");
		}
		WorkQueueStats stats = this.queue.stats();
		if (stats.waiting() < WAITING || stats.processing() != 10) {
			throw new IllegalStateException("the queue was not filled: " + stats);
		}
	}

	private void fillMemory() {
		DelayingQueue<String> memory = WorkQueues.<String>builder()
			.name("console-page")
			.codec(ItemCodec.strings())
			.buildDelayingQueue();
		for (int i = 0; i < WAITING; i++) {
			memory.addAfter(item(i), Duration.ofHours(1).plusMillis(i));
		}
		this.queue = memory;
		this.resources = memory::shutDown;
	}

	private void fillRedis() throws Exception {
		RedisClient client = RedisClient
			.create(RedisURI.builder().withHost(RedisAdmin.HOST).withPort(RedisAdmin.PORT).build());
		String name = RedisAdmin.uniqueName("console-page");
		DelayingQueue<String> redis = RedisWorkQueues.builder(client, ItemCodec.strings())
			.name(name)
			.buildDelayingQueue();
		ExecutorService fillers = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> parts = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				int first = t;
				parts.add(fillers.submit(() -> {
					for (int i = first; i < WAITING; i += 16) {
						redis.addAfter(item(i), Duration.ofHours(1).plusMillis(i));
					}
				}));
			}
			for (Future<?> part : parts) {
				part.get();
			}
		}
		finally {
			fillers.shutdown();
		}
		this.queue = redis;
		this.resources = () -> {
			redis.shutDown();
			try (RedisAdmin admin = RedisAdmin.connect()) {
				admin.deleteKeysContaining(name);
			}
			client.shutdown();
		};
	}

	private void fillPostgres() {
		String database = PostgresAdmin.createDatabase();
		String table = "console_page_item";
		HikariDataSource pool = PostgresContender.pool(database, "console-page");
		try (PostgresAdmin admin = PostgresAdmin.connect(database)) {
			admin.execute(PostgresWorkQueues.schema(table));
			DelayingQueue<String> postgres = PostgresWorkQueues.builder(pool, ItemCodec.strings())
				.name("console-page")
				.table(table)
				.buildDelayingQueue();
			// The queue's own format (schema.sql): queued rows (state 0), due from an
			// hour on.
			admin.execute("INSERT INTO " + table + " (queue, item, state, priority, ready_at, seq)"
					+ " SELECT 'console-page', 'item-' || g, 0, 0,"
					+ " now() + interval '1 hour' + g * interval '1 millisecond', nextval('" + table + "_token')"
					+ " FROM generate_series(0, " + (WAITING - 1) + ") g");
			admin.execute("ANALYZE " + table);
			this.queue = postgres;
		}
		this.resources = () -> {
			this.queue.shutDown();
			pool.close();
			PostgresAdmin.dropDatabase(database);
		};
	}

	private static String item(int i) {
		return "item-" + i;
	}

	/**
	 * The reads of one queue page on the request path.
	 * @param blackhole where the answers go
	 */
	@Benchmark
	public void page(Blackhole blackhole) {
		blackhole.consume(this.inspector.givenUpCount());
		blackhole.consume(this.inspector.paused());
		for (ItemState state : ItemState.values()) {
			blackhole.consume(this.inspector.items(state, 0, PAGE));
		}
	}

	/**
	 * The figures the console's refresher reads in the background.
	 * @return the figures
	 */
	@Benchmark
	public WorkQueueStats figures() {
		return this.queue.stats();
	}

	/**
	 * One key looked up exactly among the million.
	 * @return what the lookup found
	 */
	@Benchmark
	public Object find() {
		return this.inspector.find(item(WAITING / 2));
	}

	@TearDown(Level.Trial)
	public void close() throws Exception {
		for (String item : this.held) {
			this.queue.done(item);
		}
		this.resources.close();
	}

}
