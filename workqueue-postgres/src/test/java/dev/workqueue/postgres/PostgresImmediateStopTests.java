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
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An immediate stop of the database (as a crash: no checkpoint, every connection cut) in
 * the middle of a run, and a start once the calls have met the outage, on a private
 * cluster ({@link PrivateCluster}): every add that returned normally is processed, no
 * item is handed out after a {@code done} of it returned normally, the same handle
 * recovers by itself, and the queue's table and its {@code _lease} table are empty at the
 * end. Producers and consumers retry through the outage; an add that failed is not
 * counted (it may or may not have been written) and never repeated, so each item is added
 * at most once and any hand-out after its {@code done} returned is a {@code done} undone,
 * but for one case: the outage (and the recovery) can outlast what was left of a lease (2
 * s), the lease keeper then queues the item again and its holder's late {@code done}
 * changes nothing (at-least-once, contract §3, docs/postgres.md "Leases and recovery").
 * (a lease taken before the stop, for a consumer or claimed ahead for one). Such a
 * hand-out is allowed only after a {@code done} that returned after the stop, and no more
 * of them than the leases the keeper logged it queued again. A {@code done} that failed
 * is not counted either: the handle no longer holds the item (a repeated {@code done}
 * returns at once and changes nothing), and the item comes back, at least once.
 */
class PostgresImmediateStopTests {

	private static final Pattern QUEUED_AGAIN = Pattern.compile("queued again (\\d+) item\\(s\\) whose lease ran out");

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

	/** The tick at which the first poll that handed the item out began. */
	private final Map<String, Long> firstHandedAt = new ConcurrentHashMap<>();

	private final List<String> undone = new CopyOnWriteArrayList<>();

	/**
	 * Items handed out again after a late done of a holder that held them through the
	 * stop.
	 */
	private final List<String> heldThroughTheStop = new CopyOnWriteArrayList<>();

	/** Items of which a done failed, until they are handed out again. */
	private final Set<String> doneFailed = ConcurrentHashMap.newKeySet();

	/** Items handed out again after a done of them failed. */
	private final List<String> backAfterAFailedDone = new CopyOnWriteArrayList<>();

	private volatile long stoppedAt = Long.MAX_VALUE;

	private volatile long startedAt = Long.MAX_VALUE;

	private final List<Throwable> failures = new CopyOnWriteArrayList<>();

	private final AtomicInteger failedCalls = new AtomicInteger();

	private volatile boolean stop;

	@Test
	void acknowledgedAddsAndReturnedDonesSurviveAnImmediateStop() throws Exception {
		try (PrivateCluster cluster = new PrivateCluster("PostgresImmediateStopTests");
				LogRecords keeper = new LogRecords(LeaseKeeper.class)) {
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
				this.stoppedAt = this.ticks.incrementAndGet();
				int failedBeforeTheStop = this.failedCalls.get();
				cluster.stopImmediately();
				// The server stays down until the producers and consumers have met the
				// outage: calls failed while it was down.
				await().atMost(Duration.ofSeconds(20))
					.until(() -> this.failedCalls.get() >= failedBeforeTheStop + PRODUCERS + CONSUMERS);
				cluster.start();
				this.startedAt = this.ticks.incrementAndGet();
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
				// An add whose commit's answer the stop cut off failed to its caller, yet
				// its item may be in the table: it is an item like any other, so the
				// consumers go on until the table holds nothing (or it stays, and the
				// check below fails).
				await().atMost(Duration.ofSeconds(30)).until(() -> cluster.count(TABLE) == 0);
				this.stop = true;
				for (Thread consumer : consumers) {
					consumer.join(10_000);
					assertThat(consumer.isAlive()).as("a consumer still taking after 10 s").isFalse();
				}
				System.out.println("PostgresImmediateStopTests: " + this.acknowledged.size() + " adds acknowledged ("
						+ acknowledgedAtStop + " before the stop), " + this.doneAt.size() + " items done, "
						+ this.failedCalls.get() + " calls failed during the outage, " + this.heldThroughTheStop.size()
						+ " items handed out again after their lease ran out during it, "
						+ this.backAfterAFailedDone.size() + " after a done of them failed");
			}
			finally {
				this.stop = true;
				queue.shutDown();
			}
			assertThat(this.failures).isEmpty();
			assertThat(this.heldThroughTheStop)
				.as("items handed out again after a late done, against the leases queued again")
				.hasSizeLessThanOrEqualTo(queuedAgain(keeper));
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

	/**
	 * How many items the lease keeper said it queued again because their lease ran out.
	 */
	private static int queuedAgain(LogRecords keeper) {
		return keeper.messages(Level.WARNING)
			.stream()
			.map(QUEUED_AGAIN::matcher)
			.filter(Matcher::find)
			.mapToInt((found) -> Integer.parseInt(found.group(1)))
			.sum();
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

	/**
	 * Takes and finishes items, repeating a failed done until it returns normally (the
	 * item is then remembered as one whose done failed).
	 */
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
				Long first = this.firstHandedAt.putIfAbsent(item, polledAt);
				if (done != null && done < polledAt) {
					String handedOut = item + " (first handed out at tick " + first + ", done at " + done
							+ ", again at " + polledAt + ", stopped at " + this.stoppedAt + ", started at "
							+ this.startedAt + ")";
					if (this.doneFailed.remove(item)) {
						this.backAfterAFailedDone.add(handedOut);
					}
					else {
						(done > this.stoppedAt ? this.heldThroughTheStop : this.undone).add(handedOut);
					}
					// Handed out anew: its next done is the one that counts.
					this.doneAt.remove(item);
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
				this.doneFailed.add(item);
			}
		}
	}

}
