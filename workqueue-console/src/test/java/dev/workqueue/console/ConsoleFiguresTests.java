package dev.workqueue.console;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How the console keeps every queue's figures: read in the background while it is
 * watched, read by a request only when there is no reading, read afresh after an action.
 */
class ConsoleFiguresTests {

	private static final String THREAD = "workqueue-console-figures";

	private final InspectedQueue orders = new InspectedQueue("orders", true);

	private final InspectedQueue broken = new InspectedQueue("broken", true).unreachable("store out of reach");

	private final FakeClock clock = new FakeClock();

	private final TestRegistry registry = new TestRegistry(Map.of("orders", this.orders, "broken", this.broken));

	private final ConsoleQueues queues = new ConsoleQueues(this.registry, null, List.of(),
			new RateSampler(this.registry, new StatsQueueCounters(this.registry), this.clock),
			new ItemIds(new SecureRandom()), new WorkQueueConsoleProperties(), this.clock);

	private final ConsoleFigures figures = new ConsoleFigures(this.queues, this.clock);

	@AfterEach
	void stop() {
		this.figures.stop();
	}

	@Test
	void firstRequestReadsTheQueueAndLaterOnesTakeTheReading() {
		assertThat(this.figures.figures("orders").depth()).isZero();
		assertThat(this.orders.statsReads()).isOne();
		this.orders.add("order-1");
		this.clock.step(Duration.ofSeconds(5));
		ConsoleQueue figures = this.figures.figures("orders");
		assertThat(figures.depth()).isZero();
		assertThat(figures.readAt()).isEqualTo("1970-01-01T00:00:00Z");
		assertThat(this.orders.statsReads()).isOne();
	}

	@Test
	void concurrentFirstRequestsShareOneRead() throws Exception {
		CountDownLatch gate = new CountDownLatch(1);
		this.orders.holdStats(gate);
		CompletableFuture<ConsoleQueue> first = CompletableFuture.supplyAsync(() -> this.figures.figures("orders"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.orders.statsReads() == 1);
		Thread second = new Thread(() -> this.figures.figures("orders"));
		second.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> second.getState() == Thread.State.BLOCKED);
		gate.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> !second.isAlive());
		assertThat(first.get().depth()).isZero();
		assertThat(this.orders.statsReads()).isOne();
	}

	@Test
	void refreshReadsTheQueueAfreshForTheOverviewToo() {
		this.figures.figures("orders");
		this.orders.add("order-1");
		assertThat(this.figures.refresh("orders").depth()).isOne();
		assertThat(this.figures.figures("orders").depth()).isOne();
		assertThat(depthOfOrders(this.figures.overview())).isOne();
	}

	@Test
	void queueThatCannotBeReadCarriesItsErrorAndTheOthersAreRead() {
		this.figures.refreshAll();
		ConsoleOverview overview = this.figures.overview();
		assertThat(overview.queues().get(0).error()).isEqualTo("cannot read the queue: store out of reach");
		assertThat(overview.queues().get(0).depth()).isNull();
		assertThat(overview.queues().get(1).error()).isNull();
		assertThat(depthOfOrders(overview)).isZero();
		assertThat(this.orders.statsReads()).isOne();
	}

	@Test
	void overviewTimeIsItsOldestReading() {
		this.figures.figures("orders");
		this.clock.step(Duration.ofSeconds(3));
		ConsoleOverview overview = this.figures.overview();
		assertThat(overview.queues().get(0).readAt()).isEqualTo("1970-01-01T00:00:03Z");
		assertThat(overview.time()).isEqualTo("1970-01-01T00:00:00Z");
	}

	@Test
	void refreshesEverySecondOnlyWhileWatched() {
		this.figures.start();
		await().atMost(Duration.ofSeconds(5)).until(this.figures::isIdle);
		assertThat(this.orders.statsReads()).isZero();
		this.figures.overview();
		// The thread woke to read every queue, and waits for the next round.
		await().atMost(Duration.ofSeconds(5)).until(this.clock::hasWaiters);
		assertThat(this.orders.statsReads()).isBetween(1, 2);
		this.orders.add("order-1");
		stepOneRound();
		assertThat(depthOfOrders(this.figures.overview())).isOne();
		this.orders.add("order-2");
		stepOneRound();
		assertThat(depthOfOrders(this.figures.overview())).isEqualTo(2);
		this.clock.step(Duration.ofSeconds(ConsoleFigures.WATCHED_SECONDS));
		await().atMost(Duration.ofSeconds(5)).until(this.figures::isIdle);
		int reads = this.orders.statsReads();
		this.orders.add("order-3");
		this.clock.step(Duration.ofMinutes(5));
		assertThat(this.orders.statsReads()).isEqualTo(reads);
		// Idle, the readings were forgotten: without the thread, the request reads the
		// queue itself.
		this.figures.stop();
		assertThat(this.figures.figures("orders").depth()).isEqualTo(3);
	}

	/** Steps the clock one second and waits for the thread's round. */
	private void stepOneRound() {
		int reads = this.orders.statsReads();
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.orders.statsReads() == reads + 1 && this.clock.hasWaiters());
	}

	@Test
	void stopEndsTheThread() {
		Set<Thread> before = refreshers();
		this.figures.start();
		this.figures.figures("orders");
		await().atMost(Duration.ofSeconds(5)).until(this.clock::hasWaiters);
		Set<Thread> started = refreshers();
		started.removeAll(before);
		assertThat(started).hasSize(1);
		this.figures.stop();
		assertThat(this.figures.isRunning()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> started.stream().noneMatch(Thread::isAlive));
	}

	static Set<Thread> refreshers() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(THREAD))
			.collect(Collectors.toSet());
	}

	private static int depthOfOrders(ConsoleOverview overview) {
		return overview.queues().get(1).depth();
	}

}
