package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The looks of a handle's consumers go one claim at a time ({@link ItemTaker}): those
 * that want to look while a claim is in flight send none of their own; the next claim
 * carries their owed dones and claims for them all, and each returns only once it
 * returned.
 */
class GroupedLooksTests {

	private final FakeClock clock = new FakeClock();

	private final GroupStore store = new GroupStore();

	private final LeaseBook<String, TestLease> book = new LeaseBook<>();

	private final HandleLifecycle lifecycle = new HandleLifecycle(() -> {
	});

	private final ReadySignal signal = new ReadySignal(this.clock,
			StoreWakeups.everyNotice(StoreWakeups.NO_TIMED_LOOKS), null);

	private final LeaseReleases<String, TestLease> releases = new LeaseReleases<>(this.store, this.book, this.lifecycle,
			WorkQueueMetrics.NOOP, this.clock, () -> {
			});

	private final HeldCodec codec = new HeldCodec();

	private final ItemTaker<String, TestLease> taker = new ItemTaker<>(this.codec, this.store, this.book, this.releases,
			this.signal, this.lifecycle, WorkQueueMetrics.NOOP, this.clock, GroupStore.LEASE_NANOS);

	@Test
	void looksWhileAClaimIsInFlightGoAsTheNextClaimThatCarriesTheirDones() throws Exception {
		holding("a", "b", "c");
		this.store.gate();
		CompletableFuture<String> first = doneAndPoll("a").result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<String>> queued = queuedDonesAndPolls("b", "c");
		this.store.ready("x", "y");
		this.store.pass();
		assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("x");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		// The second claim is under way: neither done it carries has returned.
		assertThat(queued).noneMatch(CompletableFuture::isDone);
		this.store.pass();
		List<String> items = new ArrayList<>();
		for (CompletableFuture<String> taken : queued) {
			items.add(taken.get(5, TimeUnit.SECONDS));
		}
		// One claim for both: the one that sent it has y, the other none (a poll without
		// a wait).
		assertThat(items).containsExactlyInAnyOrder("y", null);
		assertThat(this.store.calls).containsExactly("claim 1 done [a#1]", "claim 2 done [b#2, c#3]");
		assertThat(this.store.mostClaimsAtOnce).hasValue(1);
		assertThat(this.store.heldCount()).isEqualTo(2);
		assertThat(this.book.size()).isEqualTo(2);
	}

	@Test
	void aClaimThatFailsFailsEveryAskOfItAndEndsTheirHolds() throws Exception {
		holding("a", "b", "c");
		this.store.gate();
		CompletableFuture<String> first = doneAndPoll("a").result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<String>> queued = queuedDonesAndPolls("b", "c");
		this.store.pass();
		assertThat(first.get(5, TimeUnit.SECONDS)).isNull();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		this.store.fail();
		this.store.pass();
		for (CompletableFuture<String> taken : queued) {
			assertThatThrownBy(() -> taken.get(5, TimeUnit.SECONDS)).hasRootCauseMessage("claim failed");
		}
		assertThat(this.store.calls).containsExactly("claim 1 done [a#1]", "claim 2 done [b#2, c#3]");
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void aDoneThatNeedsNoLookRidesWithTheNextClaimOfTheOthers() throws Exception {
		holding("a", "b", "c");
		assertThat(this.taker.take(true, 0, null, null, null)).as("an empty look").isNull();
		this.store.gate();
		CompletableFuture<String> first = doneAndPoll("a").result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		// The store is known empty: this consumer's done needs no look of its own.
		Waiters.Waiter<String> waiting = Waiters.start(() -> {
			Prioritized<String> taken = this.taker.take(true, Duration.ofSeconds(1).toNanos(), null,
					this.releases.finishForNextTake("b"), null);
			return (taken != null) ? taken.item() : null;
		});
		waiting.awaitWaiting();
		List<CompletableFuture<String>> polls = queuedDonesAndPolls("c");
		this.store.pass();
		assertThat(first.get(5, TimeUnit.SECONDS)).isNull();
		this.store.pass();
		assertThat(polls.get(0).get(5, TimeUnit.SECONDS)).isNull();
		assertThat(this.store.calls).containsExactly("claim 1", "claim 1 done [a#1]", "claim 1 done [b#2, c#3]");
		this.clock.step(Duration.ofSeconds(2));
		assertThat(waiting.result().get(5, TimeUnit.SECONDS)).isNull();
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void eachMemberOfAGroupClaimGetsTheItemLeasedForItEvenWithoutAWait() throws Exception {
		holding("a", "b", "c");
		this.store.gate();
		CompletableFuture<String> first = doneAndPoll("a").result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<String>> queued = queuedDonesAndPolls("b", "c");
		this.store.ready("x", "y", "z");
		this.store.pass();
		this.store.pass();
		assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("x");
		List<String> items = new ArrayList<>();
		for (CompletableFuture<String> taken : queued) {
			items.add(taken.get(5, TimeUnit.SECONDS));
		}
		// A poll without a wait whose claim another made: its item is handed to it.
		assertThat(items).containsExactlyInAnyOrder("y", "z");
		assertThat(this.store.calls).containsExactly("claim 1 done [a#1]", "claim 2 done [b#2, c#3]");
		assertThat(this.store.readyCount()).isZero();
		assertThat(this.book.size()).isEqualTo(3);
	}

	/**
	 * A consumer that only sends a done (it saw items ahead) may lead the claim of one
	 * that wants an item; the claim comes back empty: the notices of the items ahead,
	 * which came after the wanting one read its epoch, keep their permits, and it takes
	 * one. Repeated: either of the two may lead.
	 */
	@RepeatedTest(5)
	void anEmptyClaimLedByADoneLeavesTheNoticesOfItemsAheadToTheOneThatWanted() throws Exception {
		holding("b");
		List<Waiters.Waiter<String>> left = waitingPolls(2);
		this.store.gate();
		this.store.ready("x", "y", "z");
		// Claims for itself and the two waiting: y and z go ahead.
		CompletableFuture<String> first = poll(Duration.ZERO).result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		Waiters.Waiter<String> next = poll(Duration.ZERO);
		next.awaitWaiting();
		// The two waiting leave: the items claimed for them wait ahead for whoever comes.
		this.clock.step(Duration.ofSeconds(2));
		for (Waiters.Waiter<String> waiter : left) {
			assertThat(waiter.result().get(5, TimeUnit.SECONDS)).isNull();
		}
		CountDownLatch decoding = this.codec.holdNext();
		this.store.pass();
		decoding.await(5, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 3);
		// A notice: the one that wants an item looks, finds none ahead yet, and asks.
		this.signal.signal();
		Waiters.Waiter<String> wanting = poll(Duration.ofSeconds(10));
		wanting.awaitWaiting();
		this.codec.release();
		assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("x");
		// Items wait ahead: its done asks for no item.
		Waiters.Waiter<String> doneOnly = Waiters.start(() -> {
			Prioritized<String> taken = this.taker.take(true, Duration.ofSeconds(10).toNanos(), null,
					this.releases.finishForNextTake("b"), null);
			return (taken != null) ? taken.item() : null;
		});
		doneOnly.awaitWaiting();
		this.store.ungate();
		assertThat(next.result().get(5, TimeUnit.SECONDS)).isNull();
		assertThat(List.of(doneOnly.result().get(5, TimeUnit.SECONDS), wanting.result().get(5, TimeUnit.SECONDS)))
			.containsExactlyInAnyOrder("y", "z");
		assertThat(this.store.calls).endsWith("claim 1 done [b#1]");
		// The empty claim spent no notice that came after the wanting one read its epoch
		// (its permit would be gone while an item waited ahead: the wanting one, if not
		// waiting yet, would sleep).
		assertThat(this.signal.knownEmpty(this.signal.epoch())).isFalse();
	}

	@Test
	void aClaimLeasesNothingForTheWaitingThatItemsInHandAreFor() throws Exception {
		List<Waiters.Waiter<String>> waiting = waitingPolls(3);
		this.store.gate();
		this.store.ready("p", "q", "r", "s", "t", "u", "v", "w");
		CompletableFuture<String> first = poll(Duration.ZERO).result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		CountDownLatch decoding = this.codec.holdNext();
		this.store.pass();
		decoding.await(5, TimeUnit.SECONDS);
		// The first claim's items are in hand: three of them are for the three waiting.
		CompletableFuture<String> second = poll(Duration.ZERO).result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 3);
		this.store.ungate();
		this.codec.release();
		List<String> items = new ArrayList<>(List.of(first.get(5, TimeUnit.SECONDS), second.get(5, TimeUnit.SECONDS)));
		for (Waiters.Waiter<String> waiter : waiting) {
			items.add(waiter.result().get(5, TimeUnit.SECONDS));
		}
		assertThat(items).doesNotContainNull().doesNotHaveDuplicates();
		// The second claim asks for its own item only (a waiting consumer may look
		// again later, when another took the item its notice was for).
		assertThat(this.store.calls.subList(0, 3)).containsExactly("claim 1", "claim 4", "claim 1");
		assertThat(this.store.heldCount()).isEqualTo(5);
	}

	@Test
	void aClaimCarriesAtMostABatchOfDonesTheRestGoFirstOnTheirOwn() throws Exception {
		List<String> items = new ArrayList<>();
		for (int n = 0; n <= LeaseReleases.MAX_DONES + 5; n++) {
			items.add("i" + n);
		}
		holding(items.toArray(String[]::new));
		this.store.gate();
		CompletableFuture<String> first = doneAndPoll(items.get(0)).result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<String>> queued = queuedDonesAndPolls(
				items.subList(1, items.size()).toArray(String[]::new));
		this.store.ungate();
		assertThat(first.get(5, TimeUnit.SECONDS)).isNull();
		for (CompletableFuture<String> taken : queued) {
			assertThat(taken.get(5, TimeUnit.SECONDS)).isNull();
		}
		assertThat(this.store.calls).hasSize(3);
		assertThat(this.store.calls.get(1)).startsWith("done [")
			.satisfies((call) -> assertThat(leases(call)).isEqualTo(5));
		assertThat(this.store.calls.get(2)).startsWith("claim 8 done [")
			.satisfies((call) -> assertThat(leases(call)).isEqualTo(LeaseReleases.MAX_DONES));
		assertThat(this.store.heldCount()).isZero();
		assertThat(this.book.isEmpty()).isTrue();
	}

	/** How many leases a recorded call carries. */
	private static long leases(String call) {
		return call.chars().filter((c) -> c == '#').count();
	}

	@Test
	void anInterruptedGroupClaimSendsEveryDoneAgainAndItsLeaderThrows() throws Exception {
		holding("a", "b", "c", "d");
		this.store.gate();
		CompletableFuture<String> first = doneAndPoll("a").result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<String>> queued = queuedDonesAndPolls("b", "c", "d");
		this.store.pass();
		assertThat(first.get(5, TimeUnit.SECONDS)).isNull();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 2);
		this.store.claimer.interrupt();
		this.store.ungate();
		int interrupted = 0;
		for (CompletableFuture<String> taken : queued) {
			try {
				assertThat(taken.get(5, TimeUnit.SECONDS)).isNull();
			}
			catch (ExecutionException ex) {
				assertThat(ex).hasCauseInstanceOf(InterruptedException.class);
				interrupted++;
			}
		}
		assertThat(interrupted).as("the leader").isOne();
		assertThat(this.store.calls.get(1)).isEqualTo("claim 3 done [b#2, c#3, d#4]");
		for (String item : List.of("a", "b", "c", "d")) {
			assertThat(this.store.holds(item)).as(item).isFalse();
		}
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void aShutdownWithAGroupClaimInFlightHandsEverythingBack() throws Exception {
		holding("a", "b", "c");
		this.store.gate();
		CompletableFuture<String> first = doneAndPoll("a").result();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.entered.get() == 1);
		List<CompletableFuture<String>> queued = queuedDonesAndPolls("b", "c");
		this.store.ready("x", "y", "z");
		this.lifecycle.shutDown();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.store.ungate();
		assertThat(first.get(5, TimeUnit.SECONDS)).isNull();
		for (CompletableFuture<String> taken : queued) {
			assertThat(taken.get(5, TimeUnit.SECONDS)).isNull();
		}
		assertThat(this.store.heldCount()).isZero();
		assertThat(this.store.readyCount()).isEqualTo(3);
		assertThat(this.book.isEmpty()).isTrue();
	}

	private void holding(String... items) {
		for (String item : items) {
			assertThat(this.book.take(item, this.store.lease(item))).isEqualTo(LeaseBook.Taken.HELD);
		}
	}

	/** A worker's done of {@code item} and its poll without a wait for the next. */
	private Waiters.Waiter<String> doneAndPoll(String item) {
		return Waiters.start(() -> {
			Prioritized<String> taken = this.taker.take(true, 0, null, this.releases.finishForNextTake(item), null);
			return (taken != null) ? taken.item() : null;
		});
	}

	/** A poll without a done. */
	private Waiters.Waiter<String> poll(Duration timeout) {
		Waiters.Waiter<String> waiter = Waiters.start(() -> {
			Prioritized<String> taken = this.taker.take(true, timeout.toNanos(), null, null, null);
			return (taken != null) ? taken.item() : null;
		});
		return waiter;
	}

	/**
	 * Polls of a second that wait for a notice, started one after the other: the first
	 * finds the store empty, the others know it.
	 */
	private List<Waiters.Waiter<String>> waitingPolls(int count) {
		List<Waiters.Waiter<String>> waiters = new ArrayList<>();
		for (int n = 1; n <= count; n++) {
			waiters.add(poll(Duration.ofSeconds(1)));
			int waiting = n;
			await().atMost(Duration.ofSeconds(5)).until(() -> this.signal.waiting() == waiting);
		}
		assertThat(this.store.calls).containsExactly("claim 1");
		return waiters;
	}

	/** Dones and polls made one after the other, each waiting before the next is made. */
	private List<CompletableFuture<String>> queuedDonesAndPolls(String... items) {
		List<CompletableFuture<String>> taken = new ArrayList<>();
		for (String item : items) {
			Waiters.Waiter<String> waiter = doneAndPoll(item);
			waiter.awaitWaiting();
			taken.add(waiter.result());
		}
		return taken;
	}

	/** Strings as themselves; holds the next decode until released, when asked to. */
	private static final class HeldCodec implements ItemCodec<String> {

		private volatile CountDownLatch decoding;

		private final CountDownLatch released = new CountDownLatch(1);

		/** Holds the next decode: the latch returned opens once it is held. */
		CountDownLatch holdNext() {
			CountDownLatch held = new CountDownLatch(1);
			this.decoding = held;
			return held;
		}

		void release() {
			this.released.countDown();
		}

		@Override
		public String encode(String item) {
			return item;
		}

		@Override
		public String decode(String encoded) {
			CountDownLatch held = this.decoding;
			if (held != null) {
				this.decoding = null;
				held.countDown();
				try {
					this.released.await(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return encoded;
		}

	}

}
