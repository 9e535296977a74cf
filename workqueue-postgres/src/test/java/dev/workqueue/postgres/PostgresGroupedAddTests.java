package dev.workqueue.postgres;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.workqueue.Adders;
import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.ratelimit.RateLimiters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Adds outside a caller's transaction share statements and commits: concurrent adds of a
 * handle go in one batch, each caller returns only once the commit that holds its own add
 * is done, a batch may hold one item twice (with client-go's outcome of the adds made one
 * after the other), and an item PostgreSQL cannot store fails the call that added it
 * only.
 */
@RequiresPostgres
class PostgresGroupedAddTests {

	private final EngineFixture fixture = new EngineFixture();

	private final CountDownLatch release = new CountDownLatch(1);

	private final AtomicInteger connections = new AtomicInteger();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private boolean visible(String item) {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + " WHERE item = ?", item) == 1;
	}

	@Test
	void addsThatComeWhileABatchRunsGoTogetherInTheNextAndEachReturnsAfterItsCommit() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger batches = new AtomicInteger();
		AtomicInteger added = new AtomicInteger();
		DataSource gated = GatedPool.gate(this.fixture.tableFixture().dataSource(), release, batches);
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("grouped")
			.workerDataSource(gated)
			.callerTransaction(() -> false)
			.metrics(new WorkQueueMetrics() {
				@Override
				public void added() {
					added.incrementAndGet();
				}
			})
			.buildDelayingQueue());
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		Thread leader = Adders.start("adder-leader", () -> {
			queue.add("first");
			assertThat(visible("first")).isTrue();
		}, failures);
		await().atMost(Duration.ofSeconds(5)).until(() -> leader.getState() == Thread.State.WAITING);
		List<Thread> followers = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			String item = "item-" + i;
			followers.add(Adders.start("adder-" + i, () -> {
				queue.add(item);
				assertThat(visible(item)).as("committed when add returns").isTrue();
			}, failures));
		}
		for (int i = 0; i < 5; i++) {
			followers.add(Adders.start("adder-twice-" + i, () -> {
				queue.add("twice");
				assertThat(visible("twice")).isTrue();
			}, failures));
		}
		for (Thread follower : followers) {
			await().atMost(Duration.ofSeconds(5)).until(() -> follower.getState() == Thread.State.WAITING);
		}
		assertThat(batches).as("only the leader's batch has begun").hasValue(1);
		release.countDown();
		leader.join(10_000);
		for (Thread follower : followers) {
			follower.join(10_000);
			assertThat(follower.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(batches).as("the 25 adds that came meanwhile went in one batch").hasValue(2);
		assertThat(TestSql.count(this.fixture.table())).isEqualTo(22);
		assertThat(added).as("the item added five times counts once").hasValue(22);
	}

	/**
	 * client-go's rule for an item added now and also after a delay: it is processed now,
	 * and once more when the delay ends if its first processing ended by then. Made one
	 * after the other, in either order, the adds leave the item ready with its wait kept;
	 * in one batch they must too (merged to the earlier time, the wait was lost).
	 */
	@ParameterizedTest(name = "delayed add first: {0}")
	@ValueSource(booleans = { false, true })
	void anItemAddedNowAndAfterADelayInOneBatchKeepsItsWait(boolean delayedFirst) throws Exception {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("grouped")
			.workerDataSource(gated())
			.callerTransaction(() -> false)
			.buildDelayingQueue());
		Runnable now = () -> queue.add("x");
		Runnable later = () -> queue.addAfter("x", Duration.ofHours(1));
		inOneBatchBehindALeader(() -> queue.add("first"), delayedFirst ? later : now, delayedFirst ? now : later);
		assertThat(this.connections).as("the leader's batch, then one transaction for x's").hasValue(2);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("first");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		queue.done("first");
		queue.done("x");
		assertThat(queue.stats().waiting()).as("x waits for its delay to end, to run once more").isOne();
		assertThat(queue.poll(Duration.ZERO)).isNull();
	}

	/**
	 * An add of the other kind than an item's adds before it in the batch starts the
	 * batch's next statement, and the adds after it go there too: the items keep the
	 * order of their adds, an {@code addAll}'s line-up among them.
	 */
	@Test
	void itemsAddedAfterAnItemAddedBothNowAndAfterADelayLineUpBehindIt() throws Exception {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("grouped")
			.workerDataSource(gated())
			.callerTransaction(() -> false)
			.buildDelayingQueue());
		inOneBatchBehindALeader(() -> queue.add("first"), () -> queue.addAfter("y", Duration.ofHours(1)),
				() -> queue.addAll(List.of("y", "w")));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("first");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("y");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("w");
	}

	/**
	 * On a priority queue, a delayed add of a ready item changes nothing (client-go's
	 * delaying queue adds it when the delay ends): in one batch with the ready add, its
	 * priority must not raise the item either.
	 */
	@Test
	void onAPriorityQueueADelayedAddInTheBatchOfAReadyAddOfTheItemDoesNotRaiseIt() throws Exception {
		PriorityQueue<String> queue = this.fixture.track(this.fixture.builder("grouped")
			.workerDataSource(gated())
			.callerTransaction(() -> false)
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		inOneBatchBehindALeader(() -> queue.add("first", 0), () -> queue.add("x", 1),
				() -> queue.addAfter("x", Duration.ofHours(1), 5));
		queue.add("y", 3);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("y");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("first");
	}

	private DataSource gated() {
		return GatedPool.gate(this.fixture.tableFixture().dataSource(), this.release, this.connections);
	}

	/**
	 * Runs {@code leader} on a thread whose statement's connection waits for
	 * {@link #release}, then each add on a thread of its own, in order, once the one
	 * before waits behind the leader: released, they all go in the next batch (as the
	 * first test shows).
	 */
	private void inOneBatchBehindALeader(Runnable leader, Runnable... adds) throws Exception {
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		threads.add(Adders.start("adder-leader", leader, failures));
		for (int i = 0; i <= adds.length; i++) {
			Thread last = threads.get(i);
			await().atMost(Duration.ofSeconds(5)).until(() -> last.getState() == Thread.State.WAITING);
			if (i < adds.length) {
				threads.add(Adders.start("adder-" + i, adds[i], failures));
			}
		}
		this.release.countDown();
		for (Thread thread : threads) {
			thread.join(10_000);
			assertThat(thread.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
	}

	@Test
	void manyThreadsAddingEachReturnOnlyOnceTheirAddIsCommitted() throws Exception {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("grouped").buildDelayingQueue());
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 12; t++) {
			int thread = t;
			threads.add(Adders.start("adder-" + t, () -> {
				for (int i = 0; i < 40; i++) {
					String item = thread + "/" + i;
					queue.add(item);
					assertThat(visible(item)).as(item).isTrue();
				}
			}, failures));
		}
		for (Thread thread : threads) {
			thread.join(60_000);
			assertThat(thread.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(queue.size()).isEqualTo(12 * 40);
	}

	@Test
	void anItemPostgresCannotStoreFailsOnlyTheCallThatAddedIt() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger batches = new AtomicInteger();
		DataSource gated = GatedPool.gate(this.fixture.tableFixture().dataSource(), release, batches);
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("grouped")
			.workerDataSource(gated)
			.callerTransaction(() -> false)
			.buildDelayingQueue());
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		Thread leader = Adders.start("adder-leader", () -> queue.add("first"), failures);
		await().atMost(Duration.ofSeconds(5)).until(() -> leader.getState() == Thread.State.WAITING);
		String tooLong = PostgresItemTests.incompressible(8_000);
		List<Throwable> refused = new CopyOnWriteArrayList<>();
		List<Thread> followers = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			String item = "item-" + i;
			followers.add(Adders.start("adder-" + i, () -> {
				queue.add(item);
				assertThat(visible(item)).as("committed when add returns").isTrue();
			}, failures));
		}
		followers.add(Adders.start("adder-bad", () -> queue.add(tooLong), refused));
		followers.add(Adders.start("adder-burst", () -> queue.addAll(List.of("with-the-bad-one", tooLong)), refused));
		for (Thread follower : followers) {
			await().atMost(Duration.ofSeconds(5)).until(() -> follower.getState() == Thread.State.WAITING);
		}
		release.countDown();
		leader.join(10_000);
		for (Thread follower : followers) {
			follower.join(10_000);
			assertThat(follower.isAlive()).isFalse();
		}
		assertThat(failures).isEmpty();
		assertThat(refused).hasSize(2)
			.allSatisfy((ex) -> assertThat(ex).isInstanceOfSatisfying(PostgresQueueException.class,
					(failure) -> assertThat(failure.reason()).isEqualTo(PostgresQueueException.Reason.BAD_ITEM)));
		assertThat(visible("with-the-bad-one")).as("its call failed as a whole").isFalse();
		assertThat(TestSql.count(this.fixture.table())).isEqualTo(11);
	}

}
