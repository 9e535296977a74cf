package dev.workqueue.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Producers and consumers on two handles of one queue, with adds of items being
 * processed, claims ahead and dones riding with the next claim: never two holders of an
 * item at once, every add followed by a processing that began after it, and the table
 * empty at the end. And distinct items added while consumers wait, leased by their adds
 * to those consumers (who often leave before the commit): each processed once.
 */
@RequiresPostgres
class PostgresStressTests {

	private static final int ITEMS = 150;

	private static final int ADDS_PER_PRODUCER = 1200;

	private static final int LEASED_PER_PRODUCER = 300;

	private final EngineFixture fixture = new EngineFixture();

	private final Map<String, Thread> holders = new ConcurrentHashMap<>();

	private final Map<String, Long> lastAdd = new ConcurrentHashMap<>();

	private final Map<String, Long> lastStart = new ConcurrentHashMap<>();

	private final AtomicLong ticks = new AtomicLong();

	private final List<Throwable> failures = new CopyOnWriteArrayList<>();

	private volatile boolean stop;

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private DelayingQueue<String> handle() {
		return this.fixture
			.track(this.fixture.builder("stress").pollInterval(Duration.ofMillis(10)).buildDelayingQueue());
	}

	@Test
	void producersAndConsumersOnTwoHandlesNeverShareAnItemAndLoseNothing() throws Exception {
		List<DelayingQueue<String>> handles = List.of(handle(), handle());
		List<Thread> producers = new ArrayList<>();
		List<Thread> consumers = new ArrayList<>();
		for (DelayingQueue<String> queue : handles) {
			for (int i = 0; i < 2; i++) {
				producers.add(start(() -> produce(queue)));
			}
			for (int i = 0; i < 3; i++) {
				consumers.add(start(() -> consume(queue)));
				consumers.add(start(() -> consumeWithPoller(queue)));
			}
		}
		for (Thread producer : producers) {
			producer.join(120_000);
			assertThat(producer.isAlive()).isFalse();
		}
		await().atMost(Duration.ofSeconds(60))
			.until(() -> TestSql.count(this.fixture.table()) == 0 && this.holders.isEmpty());
		this.stop = true;
		for (Thread consumer : consumers) {
			consumer.join(10_000);
			assertThat(consumer.isAlive()).isFalse();
		}
		assertThat(this.failures).isEmpty();
		assertThat(this.lastAdd).hasSize(ITEMS);
		this.lastAdd.forEach(
				(item, added) -> assertThat(this.lastStart.get(item)).as("%s was processed after its last add", item)
					.isGreaterThan(added));
		assertThat(TestSql.count(this.fixture.table())).isZero();
	}

	@Test
	void distinctItemsLeasedByTheirAddsToWaitingConsumersAreEachProcessedOnce() throws Exception {
		AtomicInteger leasingRuns = new AtomicInteger();
		DataSource counted = countingLeasingAdds(this.fixture.tableFixture().dataSource(), leasingRuns);
		List<DelayingQueue<String>> handles = new ArrayList<>();
		for (int n = 0; n < 2; n++) {
			handles.add(this.fixture.track(this.fixture.builder("stress")
				.workerDataSource(counted)
				.pollInterval(Duration.ofMillis(10))
				.buildDelayingQueue()));
		}
		Map<String, Integer> processed = new ConcurrentHashMap<>();
		List<Thread> producers = new ArrayList<>();
		List<Thread> consumers = new ArrayList<>();
		for (int h = 0; h < handles.size(); h++) {
			DelayingQueue<String> queue = handles.get(h);
			String prefix = "h" + h + "-";
			for (int i = 0; i < 2; i++) {
				String producer = prefix + i + "-";
				producers.add(start(() -> {
					for (int n = 0; n < LEASED_PER_PRODUCER; n++) {
						// One at a time, each once the one before was processed: the
						// consumers wait at each add.
						String item = producer + n;
						queue.add(item);
						try {
							await().atMost(Duration.ofSeconds(30))
								.pollInterval(Duration.ofMillis(1))
								.until(() -> processed.containsKey(item));
						}
						catch (ConditionTimeoutException ex) {
							throw new AssertionError(item + " not processed within 30 s; its row (state holder token): "
									+ TestSql.queryString("SELECT state || ' ' || coalesce(holder, '-') || ' '"
											+ " || coalesce(token::text, '-') FROM " + this.fixture.table()
											+ " WHERE item = ?", item),
									ex);
						}
					}
				}));
			}
			for (int i = 0; i < 4; i++) {
				// Short polls: consumers reserved by an add often leave before its
				// commit.
				consumers.add(start(() -> {
					try {
						while (!this.stop) {
							String item = queue.poll(Duration.ofMillis(5));
							if (item != null) {
								hold(item);
								processed.merge(item, 1, Integer::sum);
								release(item);
								queue.done(item);
							}
						}
					}
					catch (InterruptedException ex) {
						this.failures.add(ex);
					}
				}));
			}
		}
		for (Thread producer : producers) {
			producer.join(120_000);
			assertThat(producer.isAlive()).isFalse();
		}
		await().atMost(Duration.ofSeconds(60))
			.until(() -> !this.failures.isEmpty() || processed.size() == 4 * LEASED_PER_PRODUCER);
		assertThat(this.failures).isEmpty();
		this.stop = true;
		for (Thread consumer : consumers) {
			consumer.join(10_000);
			assertThat(consumer.isAlive()).isFalse();
		}
		assertThat(this.failures).isEmpty();
		assertThat(processed.values()).as("each once").containsOnly(1);
		assertThat(leasingRuns.get()).as("runs of the leasing add statement").isPositive();
		assertThat(TestSql.count(this.fixture.table())).isZero();
		assertThat(TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_lease")).isZero();
	}

	/**
	 * A data source whose connections count the runs of {@code add_batch_leasing.sql}
	 * (recognised by its lease CTE).
	 */
	private static DataSource countingLeasingAdds(DataSource pool, AtomicInteger runs) {
		return (DataSource) Proxy.newProxyInstance(PostgresStressTests.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					Object result = invoke(method, pool, args);
					if (!(result instanceof Connection connection)) {
						return result;
					}
					return Proxy.newProxyInstance(PostgresStressTests.class.getClassLoader(),
							new Class<?>[] { Connection.class }, (inner, call, callArgs) -> {
								if (call.getName().equals("prepareStatement") && callArgs[0] instanceof String sql
										&& sql.contains("FROM a LEFT JOIN l ON")) {
									runs.incrementAndGet();
								}
								return invoke(call, connection, callArgs);
							});
				});
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	private Thread start(Runnable task) {
		Thread thread = new Thread(() -> {
			try {
				task.run();
			}
			catch (Throwable ex) {
				this.failures.add(ex);
			}
		});
		thread.start();
		return thread;
	}

	private void produce(DelayingQueue<String> queue) {
		for (int i = 0; i < ADDS_PER_PRODUCER; i++) {
			String item = "item-" + ThreadLocalRandom.current().nextInt(ITEMS);
			// Before the add: a processing that begins after this tick may or may not
			// cover the add, but one that covers it begins after it.
			this.lastAdd.merge(item, this.ticks.incrementAndGet(), Math::max);
			queue.add(item);
		}
	}

	private void consume(DelayingQueue<String> queue) {
		try {
			while (!this.stop) {
				String item = queue.poll(Duration.ofMillis(50));
				if (item != null) {
					hold(item);
					release(item);
					queue.done(item);
				}
			}
		}
		catch (InterruptedException ex) {
			this.failures.add(ex);
		}
	}

	private void consumeWithPoller(DelayingQueue<String> queue) {
		Poller<String> poller = Pollers.of(queue);
		try {
			Prioritized<String> current = null;
			while (!this.stop) {
				if (current == null) {
					current = poller.poll(Duration.ofMillis(50));
					continue;
				}
				hold(current.item());
				release(current.item());
				current = poller.doneAndPoll(current.item(), Duration.ofMillis(50));
			}
			if (current != null) {
				hold(current.item());
				release(current.item());
				queue.done(current.item());
			}
		}
		catch (InterruptedException ex) {
			this.failures.add(ex);
		}
	}

	private void hold(String item) {
		Thread other = this.holders.putIfAbsent(item, Thread.currentThread());
		if (other != null) {
			throw new AssertionError(item + " is held by " + other + " and " + Thread.currentThread());
		}
		this.lastStart.merge(item, this.ticks.incrementAndGet(), Math::max);
	}

	private void release(String item) {
		this.holders.remove(item);
	}

}
