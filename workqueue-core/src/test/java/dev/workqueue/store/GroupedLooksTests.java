package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.time.FakeClock;
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

	private final ItemTaker<String, TestLease> taker = new ItemTaker<>(ItemCodec.strings(), this.store, this.book,
			this.releases, this.signal, this.lifecycle, WorkQueueMetrics.NOOP, this.clock, GroupStore.LEASE_NANOS);

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

}
