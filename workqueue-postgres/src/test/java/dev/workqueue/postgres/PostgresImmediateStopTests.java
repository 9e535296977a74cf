package dev.workqueue.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An immediate stop of the database (as a crash: no checkpoint, every connection cut) in
 * the middle of a run, and a start a second later, on a private cluster
 * ({@link PrivateCluster}): every add that returned normally is processed, no item is
 * handed out after a {@code done} of it returned normally, the same handle recovers by
 * itself, and the queue's table and its {@code _lease} table are empty at the end.
 * Producers and consumers retry through the outage; an add that failed is not counted (it
 * may or may not have been written) and never repeated, so each item is added at most
 * once and any hand-out after its {@code done} returned is a {@code done} undone. The
 * outage (a second, and the recovery) is shorter than the lease (2 s), so no lease runs
 * out: a late {@code done} of a lease that did is the one case where an item may rightly
 * be handed out again (docs/postgres.md, "Leases and recovery").
 */
class PostgresImmediateStopTests {

	private static final String TABLE = "wq_immediate_stop";

	private static final int PRODUCERS = 2;

	private static final int ADDS_PER_PRODUCER = 1500;

	private static final int CONSUMERS = 4;

	/** The acknowledged adds before the stop: about a third of all. */
	private static final int ADDS_BEFORE_STOP = PRODUCERS * ADDS_PER_PRODUCER / 3;

	/**
	 * Orders polls and dones across threads (a poll that begins after a done's return).
	 */
	private final AtomicLong ticks = new AtomicLong();

	private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();

	/** The tick at which a done of the item returned normally. */
	private final Map<String, Long> doneAt = new ConcurrentHashMap<>();

	private final List<String> undone = new CopyOnWriteArrayList<>();

	private final List<Throwable> failures = new CopyOnWriteArrayList<>();

	private final AtomicInteger failedCalls = new AtomicInteger();

	private volatile boolean stop;

	@Test
	void acknowledgedAddsAndReturnedDonesSurviveAnImmediateStop() throws Exception {
		try (PrivateCluster cluster = new PrivateCluster("PostgresImmediateStopTests")) {
			cluster.execute(PostgresWorkQueues.schema(TABLE));
			WorkQueue<String> queue = PostgresWorkQueues.builder(cluster.dataSource(16, 500), ItemCodec.strings())
				.table(TABLE)
				.name("immediate-stop")
				.lease(Duration.ofSeconds(2))
				.listen(true)
				.buildQueue();
			try {
				List<Thread> producers = new ArrayList<>();
				List<Thread> consumers = new ArrayList<>();
				for (int p = 0; p < PRODUCERS; p++) {
					int producer = p;
					producers.add(start(() -> produce(queue, producer)));
				}
				for (int c = 0; c < CONSUMERS; c++) {
					consumers.add(start(() -> consume(queue)));
				}
				await().atMost(Duration.ofSeconds(20)).until(() -> this.acknowledged.size() >= ADDS_BEFORE_STOP);
				int acknowledgedAtStop = this.acknowledged.size();
				cluster.stopImmediately();
				// The outage itself, not a wait for a condition: the server stays down a
				// second.
				Thread.sleep(1000);
				cluster.start();
				for (Thread producer : producers) {
					producer.join(30_000);
					assertThat(producer.isAlive()).as("a producer still adding after 30 s").isFalse();
				}
				assertThat(this.acknowledged).as("adds acknowledged after the restart, through the same handle")
					.hasSizeGreaterThan(acknowledgedAtStop);
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					List<String> lost = notProcessed();
					assertThat(lost)
						.as("%d acknowledged adds not processed, first ones %s", lost.size(),
								lost.subList(0, Math.min(5, lost.size())))
						.isEmpty();
				});
				this.stop = true;
				for (Thread consumer : consumers) {
					consumer.join(10_000);
					assertThat(consumer.isAlive()).as("a consumer still taking after 10 s").isFalse();
				}
				System.out.println("PostgresImmediateStopTests: " + this.acknowledged.size() + " adds acknowledged ("
						+ acknowledgedAtStop + " before the stop), " + this.doneAt.size() + " items done, "
						+ this.failedCalls.get() + " calls failed during the outage");
			}
			finally {
				this.stop = true;
				queue.shutDown();
			}
			assertThat(this.failures).isEmpty();
			assertThat(this.undone).as("%d items handed out after a done of them returned", this.undone.size())
				.isEmpty();
			assertThat(cluster.count(TABLE)).as("rows left in the table").isZero();
			assertThat(cluster.count(TABLE + "_lease")).as("rows left in the lease table").isZero();
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

	/** The acknowledged adds of which no done has returned yet. */
	private List<String> notProcessed() {
		return this.acknowledged.stream().filter((item) -> !this.doneAt.containsKey(item)).sorted().toList();
	}

	/**
	 * Adds distinct items once each; only an add that returned normally is acknowledged.
	 */
	private void produce(WorkQueue<String> queue, int producer) {
		for (int i = 0; i < ADDS_PER_PRODUCER; i++) {
			String item = "item-" + producer + "-" + i;
			try {
				queue.add(item);
				this.acknowledged.add(item);
			}
			catch (PostgresQueueException ex) {
				this.failedCalls.incrementAndGet();
			}
		}
	}

	/** Takes and finishes items, repeating a failed done until it returns normally. */
	private void consume(WorkQueue<String> queue) {
		try {
			while (!this.stop) {
				long polledAt = this.ticks.incrementAndGet();
				String item;
				try {
					item = queue.poll(Duration.ofMillis(100));
				}
				catch (PostgresQueueException ex) {
					this.failedCalls.incrementAndGet();
					continue;
				}
				if (item == null) {
					continue;
				}
				Long done = this.doneAt.get(item);
				if (done != null && done < polledAt) {
					this.undone.add(item);
				}
				finish(queue, item);
			}
		}
		catch (InterruptedException ex) {
			this.failures.add(ex);
		}
	}

	private void finish(WorkQueue<String> queue, String item) {
		while (!this.stop) {
			try {
				queue.done(item);
				this.doneAt.merge(item, this.ticks.incrementAndGet(), Math::min);
				return;
			}
			catch (PostgresQueueException ex) {
				this.failedCalls.incrementAndGet();
			}
		}
	}

}
