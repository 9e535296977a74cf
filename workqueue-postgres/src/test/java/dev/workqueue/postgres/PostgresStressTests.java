package dev.workqueue.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

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
 * empty at the end.
 */
@RequiresPostgres
class PostgresStressTests {

	private static final int ITEMS = 150;

	private static final int ADDS_PER_PRODUCER = 1200;

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
