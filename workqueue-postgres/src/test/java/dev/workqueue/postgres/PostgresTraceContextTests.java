package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import dev.workqueue.Adders;
import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.TraceContextContract;
import dev.workqueue.WorkQueue;
import dev.workqueue.postgres.AddGroup.Request;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.shared.SplitQueues;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Core's {@link TraceContextContract} on PostgreSQL, where the contexts live in the
 * {@code trace} column of the item's row; and what only this backend shows: an add
 * without a context runs the statement it ran before contexts existed, a batch of grouped
 * adds mixes adds with and without contexts, and a record written into the column is
 * handed out as it is.
 */
@RequiresPostgres
class PostgresTraceContextTests extends TraceContextContract {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	@Override
	protected RateLimitingQueue<String> newQueue(RateLimiter<Object> limiter) {
		return this.fixture.track(this.fixture.builder("traced")
			.clock(this.clock)
			.traceContextSource(this.source)
			.buildRateLimitingQueue(limiter));
	}

	@Override
	protected PriorityQueue<String> newPriorityQueue(RateLimiter<Object> limiter) {
		return this.fixture.track(this.fixture.builder("traced-priority")
			.clock(this.clock)
			.traceContextSource(this.source)
			.buildPriorityQueue(limiter));
	}

	/** The rows whose {@code trace} column is not {@code NULL}. */
	@Override
	protected int storedTraces(WorkQueue<String> queue) {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " WHERE trace IS NOT NULL")
			.intValue();
	}

	private String record(String item) {
		return TestSql.queryString("SELECT trace FROM " + this.fixture.table() + " WHERE item = ?", item);
	}

	@Test
	void theRecordIsTheParentThenALineForEachLink() {
		RateLimitingQueue<String> queue = newQueue(RateLimiters.defaultControllerRateLimiter());
		this.current.set("request");
		queue.add("x");
		this.current.set("other");
		queue.add("x");
		queue.addAfter("y", Duration.ofSeconds(5));
		this.current.set(null);
		queue.add("y");
		queue.add("z");
		assertThat(record("x")).isEqualTo("request\nother");
		assertThat(record("y")).isEqualTo("other");
		assertThat(record("z")).isNull();
	}

	@Test
	void anAddWithoutAContextRunsThePlainStatement() throws Exception {
		List<String> prepared = new CopyOnWriteArrayList<>();
		DelayingQueue<String> queue = this.fixture.track(PostgresWorkQueues
			.builder(recording(this.fixture.tableFixture().dataSource(), prepared), dev.workqueue.ItemCodec.strings())
			.table(this.fixture.table())
			.name("plain")
			.listen(false)
			.vacuum(VacuumPolicy.NEVER)
			.traceContextSource(this.source)
			.buildDelayingQueue());
		queue.add("a");
		queue.addAfter("b", Duration.ofSeconds(1));
		queue.addAll(List.of("c", "d"));
		assertThat(this.captures).hasValue(3);
		assertThat(prepared).isNotEmpty().noneMatch((sql) -> sql.contains("trace"));
		int before = prepared.size();
		this.current.set("request");
		queue.add("e");
		assertThat(prepared.subList(before, prepared.size())).anyMatch((sql) -> sql.contains("trace"));
		assertThat(record("e")).isEqualTo("request");
	}

	@Test
	void aBatchMixesAddsWithAndWithoutContexts() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger batches = new AtomicInteger();
		// Each adding thread's current span is named after the thread.
		Map<String, String> contexts = new ConcurrentHashMap<>(
				Map.of("adder-late", "late", "adder-y", "y-context", "adder-leader", "leader"));
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("batched")
			.workerDataSource(GatedPool.gate(this.fixture.tableFixture().dataSource(), release, batches))
			.callerTransaction(() -> false)
			.traceContextSource(() -> contexts.get(Thread.currentThread().getName()))
			.buildDelayingQueue());
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> adders = new ArrayList<>();
		// The leader's batch waits at its connection while the others queue behind it,
		// one after the other: x first without a context, then with one; y with one; z
		// without.
		adders.add(adder("adder-leader", () -> queue.add("first"), failures));
		adders.add(adder("adder-x", () -> queue.add("x"), failures));
		adders.add(adder("adder-late", () -> queue.add("x"), failures));
		adders.add(adder("adder-y", () -> queue.add("y"), failures));
		adders.add(adder("adder-z", () -> queue.add("z"), failures));
		release.countDown();
		for (Thread adder : adders) {
			adder.join(10_000);
			assertThat(adder.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(batches).as("the four adds that came meanwhile went in one batch").hasValue(2);
		assertThat(record("first")).isEqualTo("leader");
		assertThat(record("x")).as("its first add had none: the later one is a link").isEqualTo("\nlate");
		assertThat(record("y")).isEqualTo("y-context");
		assertThat(record("z")).isNull();
		Poller<String> poller = Pollers.of(queue);
		List<ItemTrace> traces = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			Prioritized<String> taken = poller.poll(Duration.ZERO);
			if (taken.item().equals("x")) {
				traces.add(poller.trace());
			}
		}
		assertThat(traces).containsExactly(new ItemTrace(null, List.of("late")));
	}

	@Test
	void addsOfOneItemInOneBatchKeepTheirOrderAndAtMostTheStoredNumber() {
		Request merged = new Request("x", 0, 0, null);
		for (int i = 0; i < 12; i++) {
			merged = merged.merge(new Request("x", 0, 0, "c" + i));
		}
		assertThat(merged.context()).isEqualTo("\nc0\nc1\nc2\nc3\nc4\nc5\nc6\nc7");
		Request traced = new Request("x", 1, 5, "parent").merge(new Request("x", 0, 3, null))
			.merge(new Request("x", 0, 9, "link"));
		assertThat(traced).isEqualTo(new Request("x", 1, 3, "parent\nlink"));
	}

	@Test
	void aRecordWrittenIntoTheColumnIsHandedOutAsItIs() throws Exception {
		RateLimitingQueue<String> queue = newQueue(RateLimiters.defaultControllerRateLimiter());
		Poller<String> poller = Pollers.of(queue);
		queue.add("x");
		TestSql.update("UPDATE " + this.fixture.table() + " SET trace = ? WHERE item = 'x'", "not a context\n\nlink");
		assertThat(poller.poll(Duration.ZERO).item()).isEqualTo("x");
		assertThat(poller.trace()).isEqualTo(new ItemTrace("not a context", List.of("", "link")));
		assertThat(storedTraces(queue)).isZero();
	}

	@Test
	void anItemHandedBackKeepsTheContextsOfTheAddsWhileItWasProcessed() throws Exception {
		RateLimitingQueue<String> queue = newQueue(RateLimiters.defaultControllerRateLimiter());
		Poller<String> poller = Pollers.of(queue);
		this.current.set("request");
		queue.add("x");
		assertThat(poller.poll(Duration.ZERO).item()).isEqualTo("x");
		this.current.set("while-processing");
		queue.add("x");
		this.current.set(null);
		assertThat(EngineFixture.handle(queue).handBack("x", Duration.ZERO)).isTrue();
		AtomicReference<ItemTrace> trace = new AtomicReference<>();
		await().atMost(Duration.ofSeconds(2)).until(() -> {
			Prioritized<String> taken = poller.poll(Duration.ZERO);
			trace.set(poller.trace());
			return taken != null;
		});
		assertThat(trace.get()).isEqualTo(new ItemTrace("while-processing", List.of()));
	}

	/**
	 * The contract through two handles sharing the queue: adds on one, takes on the
	 * other, so that the contexts stored by one are handed out by the other.
	 */
	@Nested
	@RequiresPostgres
	class TwoHandles extends TraceContextContract {

		private final EngineFixture fixture = new EngineFixture();

		@AfterEach
		void dropTable() {
			this.fixture.close();
		}

		@Override
		protected RateLimitingQueue<String> newQueue(RateLimiter<Object> limiter) {
			return SplitQueues.rateLimiting(this.fixture.track(handle("traced").buildRateLimitingQueue(limiter)),
					this.fixture.track(handle("traced").buildRateLimitingQueue(limiter)));
		}

		@Override
		protected PriorityQueue<String> newPriorityQueue(RateLimiter<Object> limiter) {
			return SplitQueues.priority(this.fixture.track(handle("traced-priority").buildPriorityQueue(limiter)),
					this.fixture.track(handle("traced-priority").buildPriorityQueue(limiter)));
		}

		private PostgresWorkQueues.Builder<String> handle(String name) {
			return this.fixture.builder(name).clock(this.clock).traceContextSource(this.source);
		}

		@Override
		protected int storedTraces(WorkQueue<String> queue) {
			return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " WHERE trace IS NOT NULL")
				.intValue();
		}

	}

	private static Thread adder(String name, Runnable add, List<Throwable> failures) {
		Thread thread = Adders.start(name, add, failures);
		// Queued in this order: each waits (for the leader's batch) before the next
		// starts.
		await().atMost(Duration.ofSeconds(5)).until(() -> thread.getState() == Thread.State.WAITING);
		return thread;
	}

	/** The pool, recording the text of every statement prepared on its connections. */
	private static DataSource recording(DataSource pool, List<String> prepared) {
		return (DataSource) Proxy.newProxyInstance(PostgresTraceContextTests.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					Object result = invoke(method, pool, args);
					if (!(result instanceof Connection connection)) {
						return result;
					}
					return Proxy.newProxyInstance(PostgresTraceContextTests.class.getClassLoader(),
							new Class<?>[] { Connection.class }, (connectionProxy, call, callArgs) -> {
								if (call.getName().equals("prepareStatement")) {
									prepared.add((String) callArgs[0]);
								}
								return invoke(call, connection, callArgs);
							});
				});
	}

	private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
