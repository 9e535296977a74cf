package dev.workqueue.store;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.store.ReadySignal.Wakeup;
import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ready signal of every shared store, without a store: notices, empty looks, the
 * permits a leaving consumer leaves to the others, timed looks and a store that hands the
 * wake-ups out. Time moves only by {@link FakeClock#step}.
 */
class ReadySignalTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private static final long SECOND_NANOS = 1_000_000_000L;

	private final FakeClock clock = new FakeClock();

	private final ExecutorService consumers = Executors.newCachedThreadPool();

	private ReadySignal signal = new ReadySignal(this.clock, StoreWakeups.everyNotice(StoreWakeups.NO_TIMED_LOOKS),
			null);

	@AfterEach
	void release() {
		this.signal.signalAll();
		this.consumers.shutdownNow();
	}

	@Test
	void aNoticeWhileNobodyWaitsIsKeptForTheNextConsumer() throws Exception {
		this.signal.signal();
		assertThat(this.signal.awaitNotice(false, 0, null)).isTrue();
	}

	@Test
	void oneNoticeWakesOneOfTheWaitingConsumers() {
		Future<Boolean> first = waiting(() -> this.signal.awaitNotice(false, 0, null));
		Future<Boolean> second = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 2);
		this.signal.signal();
		await().atMost(SOON).until(() -> first.isDone() ^ second.isDone());
		assertThat(this.signal.waiting()).as("the other waits on").isOne();
	}

	@Test
	void aNoticeIfWaitingIsGrantedOnlyToAConsumerWaitingUnnoticed() throws Exception {
		assertThat(this.signal.signalIfWaiting()).as("nobody waits").isFalse();
		Future<Boolean> waiter = waiting(
				() -> this.signal.awaitNotice(true, this.clock.nanoTime() + SECOND_NANOS, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 1);
		assertThat(this.signal.signalIfWaiting()).as("one waits").isTrue();
		await().atMost(SOON).until(waiter::isDone);
		assertThat(waiter.get()).as("it looks").isTrue();
		assertThat(this.signal.signalIfWaiting()).as("nobody waits any more").isFalse();
	}

	@Test
	void aConsumerWokenByItsPollerLeavesTheNoticeToAConsumerBesideIt() throws Exception {
		Wakeup wakeup = new Wakeup();
		this.signal.signal();
		this.signal.wake(wakeup);
		assertThat(this.signal.awaitNotice(true, this.clock.nanoTime() + SECOND_NANOS, wakeup))
			.as("the poller leaves, woken")
			.isFalse();
		assertThat(besideLooks()).as("the one beside it takes the notice, or it would sleep while items are ready")
			.isTrue();
	}

	@Test
	void aConsumerPastItsDeadlineLeavesTheNoticeToAConsumerBesideIt() throws Exception {
		this.signal.signal();
		assertThat(this.signal.awaitNotice(true, this.clock.nanoTime(), null)).as("its time is up").isFalse();
		assertThat(besideLooks()).as("the one beside it takes the notice, or it would sleep while items are ready")
			.isTrue();
	}

	@Test
	void aConsumerPastItsDeadlineIsNeverCountedAsWaiting() throws Exception {
		Counted counted = countedSignal();
		assertThat(this.signal.awaitNotice(true, this.clock.nanoTime(), null)).as("its time is up").isFalse();
		counted.assertNeverWaited();
	}

	@Test
	void aConsumerWhoseWakeupCameIsNeverCountedAsWaiting() throws Exception {
		Counted counted = countedSignal();
		Wakeup wakeup = new Wakeup();
		this.signal.wake(wakeup);
		assertThat(this.signal.awaitNotice(true, this.clock.nanoTime() + SECOND_NANOS, wakeup)).as("woken").isFalse();
		counted.assertNeverWaited();
	}

	@Test
	void aConsumerWithANoticeKeptForItIsNeverCountedAsWaiting() throws Exception {
		Counted counted = countedSignal();
		this.signal.signal();
		assertThat(this.signal.awaitNotice(true, this.clock.nanoTime() + SECOND_NANOS, null)).as("it looks").isTrue();
		counted.assertNeverWaited();
	}

	@Test
	void aLookThatFoundNothingSpendsTheNoticesBeforeIt() {
		this.signal.signal();
		long seen = this.signal.epoch();
		this.signal.lookedEmpty(seen, -1);
		assertThat(this.signal.knownEmpty(seen)).as("the others need not look").isTrue();
		Future<Boolean> waiter = waiting(
				() -> this.signal.awaitNotice(true, this.clock.nanoTime() + SECOND_NANOS, null));
		await().atMost(SOON).until(this.clock::hasWaiters);
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(SOON).until(waiter::isDone);
		assertThat(waiter).succeedsWithin(SOON).as("no notice was left: it timed out").isEqualTo(false);
	}

	@Test
	void aNoticeAfterTheLookBeganIsNotSpentByIt() throws Exception {
		long seen = this.signal.epoch();
		this.signal.signal();
		this.signal.lookedEmpty(seen, -1);
		assertThat(this.signal.knownEmpty(seen)).isFalse();
		assertThat(this.signal.awaitNotice(false, 0, null)).isTrue();
	}

	@Test
	void theLeaderLooksOnItsOwnALookIntervalAfterALookFoundNothing() {
		this.signal = new ReadySignal(this.clock, StoreWakeups.everyNotice(SECOND_NANOS), null);
		this.signal.lookedEmpty(this.signal.epoch(), -1);
		Future<Boolean> leader = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(this.clock::hasWaiters);
		this.clock.step(Duration.ofMillis(999));
		assertThat(leader).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		assertThat(leader).succeedsWithin(SOON).isEqualTo(true);
	}

	@Test
	void theLeaderLooksWhenADelayedItemFallsDue() {
		this.signal = new ReadySignal(this.clock, StoreWakeups.everyNotice(SECOND_NANOS), null);
		this.signal.lookedEmpty(this.signal.epoch(), -1);
		Future<Boolean> leader = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(this.clock::hasWaiters);
		this.signal.dueIn(Duration.ofMillis(100).toNanos());
		this.clock.step(Duration.ofMillis(100));
		assertThat(leader).succeedsWithin(SOON).isEqualTo(true);
	}

	/**
	 * A leader that leaves wakes one consumer to take the lead; when that one leaves at
	 * once too (its deadline passed while it waited), the lead passes on again, so that a
	 * consumer beside them still makes the timed looks. The clock moves without waking
	 * anyone, as real time does.
	 */
	@Test
	void theLeadPassesOnWhenTheConsumerWokenToTakeItLeavesAtOnce() throws Exception {
		SilentClock silent = new SilentClock();
		this.signal = new ReadySignal(silent, StoreWakeups.everyNotice(SECOND_NANOS), null);
		this.signal.lookedEmpty(this.signal.epoch(), -1);
		Future<Boolean> leader = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 1);
		Future<Boolean> poll = waiting(() -> this.signal.awaitNotice(true, SECOND_NANOS / 2, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 2);
		Future<Boolean> beside = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 3);
		silent.nowNanos = 2 * SECOND_NANOS;
		leader.cancel(true);
		assertThat(poll).succeedsWithin(SOON).as("past its deadline").isEqualTo(false);
		assertThat(beside).succeedsWithin(SOON).as("it leads, and its look is due").isEqualTo(true);
	}

	@Test
	void aNoticeOnTheStoresClockIsWaitedForHere() {
		this.signal = new ReadySignal(this.clock, StoreWakeups.everyNotice(60 * SECOND_NANOS), null);
		long storeNowMicros = 1_700_000_000_000_000L;
		this.signal.measured(storeNowMicros, this.clock.nanoTime());
		this.signal.lookedEmpty(this.signal.epoch(), -1);
		assertThat(this.signal.storeMillis(250_000)).isEqualTo(storeNowMicros / 1000 + 250);
		Future<Boolean> leader = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(this.clock::hasWaiters);
		this.signal.queued(storeNowMicros / 1000 + 250);
		this.clock.step(Duration.ofMillis(249));
		assertThat(leader).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		assertThat(leader).succeedsWithin(SOON).isEqualTo(true);
	}

	@Test
	void aStoreThatHandsTheWakeupsOutIsAskedOnceForTheFirstWaiterAndGetsTheNextLook() {
		HandingOut store = new HandingOut();
		this.signal = new ReadySignal(this.clock, store, null);
		waiting(() -> this.signal.awaitNotice(false, 0, null));
		waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 2);
		assertThat(store.firstWaiters).hasValue(1);
		long seen = this.signal.epoch();
		this.signal.lookedEmpty(seen, -1);
		this.signal.moreMayBeReady();
		this.signal.queued();
		assertThat(this.signal.knownEmpty(this.signal.epoch())).as("the store's wake-up comes instead").isTrue();
		this.signal.signal();
		assertThat(this.signal.knownEmpty(this.signal.epoch())).as("the store's wake-up").isFalse();
	}

	@Test
	void aStoreThatAnnouncesEveryItemHasALocalConsumerLookWhenMoreMayBeReady() {
		long seen = this.signal.epoch();
		this.signal.lookedEmpty(seen, -1);
		this.signal.moreMayBeReady();
		assertThat(this.signal.knownEmpty(this.signal.epoch())).isFalse();
	}

	@Test
	void moreMayBeReadyWakesAConsumerBeyondThoseWokenForTheItemsPutAhead() throws Exception {
		Future<Boolean> first = waiting(() -> this.signal.awaitNotice(false, 0, null));
		Future<Boolean> second = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 2);
		// A full claim put one item ahead, with its notice: one more consumer looks.
		this.signal.signal();
		this.signal.moreMayBeReady();
		assertThat(first).succeedsWithin(SOON).isEqualTo(true);
		assertThat(second).succeedsWithin(SOON).isEqualTo(true);
	}

	@Test
	void moreMayBeReadyAddsNoNoticeWhileThosePendingCoverEveryWaitingConsumer() throws Exception {
		// An item put ahead with its notice, no consumer waiting yet: its notice will do.
		this.signal.signal();
		this.signal.moreMayBeReady();
		Future<Boolean> first = waiting(() -> this.signal.awaitNotice(false, 0, null));
		assertThat(first).succeedsWithin(SOON).isEqualTo(true);
		Future<Boolean> second = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().during(Duration.ofMillis(200)).atMost(SOON).until(() -> this.signal.waiting() == 1);
		assertThat(second).as("no second notice").isNotDone();
		this.signal.signalAll();
	}

	@Test
	void shutdownReleasesEveryWaiterAndEveryOneToCome() throws Exception {
		Future<Boolean> waiter = waiting(() -> this.signal.awaitNotice(false, 0, null));
		await().atMost(SOON).until(() -> this.signal.waiting() == 1);
		this.signal.signalAll();
		assertThat(waiter).succeedsWithin(SOON).isEqualTo(true);
		assertThat(this.signal.awaitNotice(false, 0, null)).isTrue();
	}

	/**
	 * Makes {@link #signal} one whose store hands the wake-ups out, on a clock that notes
	 * how many consumers wait whenever it is read: the signal reads it while it decides
	 * whether its consumer leaves at once.
	 */
	private Counted countedSignal() {
		Counted counted = new Counted();
		Clock noting = () -> {
			counted.mostWaiting.accumulateAndGet(this.signal.waiting(), Math::max);
			return this.clock.nanoTime();
		};
		this.signal = new ReadySignal(noting, counted.store, null);
		return counted;
	}

	/**
	 * What a consumer that leaves at once must not change: a claim meanwhile would lease
	 * an item ahead for it (it reads {@link ReadySignal#waiting()}), and the store would
	 * arm a wake-up for nobody.
	 */
	private static final class Counted {

		final HandingOut store = new HandingOut();

		final AtomicInteger mostWaiting = new AtomicInteger();

		void assertNeverWaited() {
			assertThat(this.mostWaiting).as("the most consumers counted as waiting").hasValue(0);
			assertThat(this.store.firstWaiters).as("the store's wake-ups asked for").hasValue(0);
		}

	}

	/** A clock that a test sets, whose waits end only when signalled. */
	private static final class SilentClock implements Clock {

		volatile long nowNanos;

		@Override
		public long nanoTime() {
			return this.nowNanos;
		}

		@Override
		public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
			if (this.nowNanos < deadlineNanos) {
				condition.await();
			}
		}

	}

	/** Whether a consumer that starts waiting now gets a look within {@link #SOON}. */
	private boolean besideLooks() throws Exception {
		Future<Boolean> beside = waiting(
				() -> this.signal.awaitNotice(true, this.clock.nanoTime() + SECOND_NANOS, null));
		await().atMost(SOON).until(beside::isDone);
		return beside.get();
	}

	private Future<Boolean> waiting(Callable<Boolean> consumer) {
		return this.consumers.submit(consumer);
	}

	/** A store that hands each wake-up to one waiting consumer of all the instances. */
	private static final class HandingOut implements StoreWakeups {

		final AtomicInteger firstWaiters = new AtomicInteger();

		@Override
		public long lookIntervalNanos() {
			return NO_TIMED_LOOKS;
		}

		@Override
		public boolean handsOutWakeups() {
			return true;
		}

		@Override
		public void firstWaiting() {
			this.firstWaiters.incrementAndGet();
		}

	}

}
