package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

class ItemTakerTests {

	private static final long LEASE_NANOS = Duration.ofSeconds(30).toNanos();

	private final FakeClock clock = new FakeClock();

	private final LeaseBook<String, TestLease> book = new LeaseBook<>();

	private final FakeStore store = new FakeStore();

	private final HandleLifecycle lifecycle = new HandleLifecycle(() -> {
	});

	private final ReadySignal signal = new ReadySignal(this.clock,
			StoreWakeups.everyNotice(StoreWakeups.NO_TIMED_LOOKS), null);

	private final LeaseReleases<String, TestLease> releases = new LeaseReleases<>(this.store, this.book, this.lifecycle,
			WorkQueueMetrics.NOOP, this.clock, () -> {
			});

	/** Counted down as "gated" is decoded, which then waits for {@link #decoded}. */
	private final CountDownLatch decoding = new CountDownLatch(1);

	private final CountDownLatch decoded = new CountDownLatch(1);

	/** What {@link ItemTaker#aheadEncodings()} said while "peek" was decoded. */
	private final List<Set<String>> peeked = new ArrayList<>();

	/**
	 * Decodes as the identity; "bad" cannot be decoded, nor "deep" (its stack overflows);
	 * "slow" takes half a lease; "peek" notes the items ahead; "gated" waits for
	 * {@link #decoded}.
	 */
	private final ItemCodec<String> codec = new ItemCodec<>() {

		@Override
		public String encode(String item) {
			return item;
		}

		@Override
		public String decode(String encoded) {
			if (encoded.equals("bad")) {
				throw new IllegalArgumentException("cannot decode " + encoded);
			}
			if (encoded.equals("deep")) {
				throw new StackOverflowError("nested too deep");
			}
			if (encoded.equals("peek")) {
				ItemTakerTests.this.peeked.add(ItemTakerTests.this.taker.aheadEncodings());
			}
			if (encoded.equals("slow")) {
				ItemTakerTests.this.clock.step(Duration.ofNanos(LEASE_NANOS / 2));
			}
			if (encoded.equals("gated")) {
				ItemTakerTests.this.decoding.countDown();
				awaitUninterruptibly(ItemTakerTests.this.decoded);
			}
			return encoded;
		}

	};

	private final ItemTaker<String, TestLease> taker = new ItemTaker<>(this.codec, this.store, this.book, this.releases,
			this.signal, this.lifecycle, WorkQueueMetrics.NOOP, this.clock, LEASE_NANOS);

	@Test
	void aClaimLeasesOneItemMoreForEachWaitingConsumerAndHandsItOverAhead() throws Exception {
		CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				return this.taker.take(false, 0, null, null, null).item();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> this.signal.waiting() == 1);
		this.store.answers.add(List.of("a", "b"));
		assertThat(poll()).isEqualTo("a");
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("b");
		assertThat(this.store.calls).containsExactly("claim 1", "taken", "claim 2", "taken");
		assertThat(this.book.size()).isEqualTo(2);
	}

	@Test
	void aPollWithoutAWaitLooksEvenWhenAnotherFoundNothing() throws Exception {
		assertThat(poll()).isNull();
		assertThat(poll()).isNull();
		assertThat(this.store.calls).containsExactly("claim 1", "taken", "claim 1", "taken");
	}

	@Test
	void anOwedDoneRidesWithTheClaimAndEndsItsHoldOnceSent() throws Exception {
		this.store.answers.add(List.of("a"));
		assertThat(poll()).isEqualTo("a");
		TestLease owed = this.releases.finishForNextTake("a");
		assertThat(this.taker.take(true, 0, null, owed, null)).isNull();
		assertThat(this.store.calls).containsExactly("claim 1", "taken", "claim 1 done a#1", "taken");
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void anInterruptedTakeWhoseOwedDoneFailsKeepsTheInterruptWithTheFailure() throws Exception {
		this.store.answers.add(List.of("a"));
		assertThat(poll()).isEqualTo("a");
		TestLease owed = this.releases.finishForNextTake("a");
		this.store.doneFails = true;
		Thread.currentThread().interrupt();
		try {
			assertThatIllegalStateException().isThrownBy(() -> this.taker.take(true, 0, null, owed, null))
				.withMessage("done failed");
		}
		finally {
			assertThat(Thread.interrupted()).as("still interrupted").isTrue();
		}
	}

	@Test
	void anUndecodableItemGoesToTheDeadLettersAndTheConsumerLooksAgain() throws Exception {
		this.store.answers.add(List.of("bad"));
		this.store.answers.add(List.of("a"));
		assertThat(poll()).isEqualTo("a");
		assertThat(this.store.calls).containsExactly("claim 1", "deadLetter bad#1", "taken", "claim 1", "taken");
		assertThat(this.taker.deadLettered()).isOne();
	}

	@Test
	void anItemTakenInHandLateIsHandedOutOnlyIfItsLeaseIsConfirmed() throws Exception {
		this.store.answers.add(List.of("slow", "a"));
		this.store.confirms = false;
		assertThat(poll()).isNull();
		assertThat(this.store.calls).containsExactly("claim 1", "confirm slow#1", "confirm a#2", "taken", "claim 1",
				"taken");
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void anItemAWorkerHoldsIsParkedAndNotHandedOutAgain() throws Exception {
		this.store.answers.add(List.of("a"));
		this.store.answers.add(List.of("a"));
		assertThat(poll()).isEqualTo("a");
		assertThat(poll()).isNull();
		assertThat(this.book.size()).isOne();
		this.releases.done("a");
		assertThat(this.store.calls).contains("handBack a#2 after 0");
	}

	@Test
	void theEncodingsOfTheItemsClaimedAheadCanBeReadWhileTheyWait() throws Exception {
		assertThat(this.taker.aheadEncodings()).isEmpty();
		this.store.answers.add(List.of("a", "b", "peek"));
		assertThat(poll()).isEqualTo("a");
		assertThat(this.peeked).containsExactly(Set.of("b"));
		assertThat(this.taker.aheadEncodings()).as("handed back as the last consumer left").isEmpty();
	}

	@Test
	void theItemsClaimedAheadAreHandedBackWhenTheLastConsumerLeaves() throws Exception {
		this.store.answers.add(List.of("a", "b"));
		assertThat(poll()).isEqualTo("a");
		assertThat(this.store.calls).containsExactly("claim 1", "taken", "handBackInPlace [b#2]");
		assertThat(this.book.size()).isOne();
	}

	@Test
	void anItemWhoseDecodeOverflowsTheStackGoesToTheDeadLettersAndTheRestOfItsClaimIsHandedOut() throws Exception {
		CompletableFuture<String> waiting = takeAsync();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.signal.waiting() == 1);
		this.store.answers.add(List.of("a", "deep", "b"));
		assertThat(poll()).isEqualTo("a");
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("b");
		assertThat(this.store.calls).anyMatch((call) -> call.startsWith("deadLetter deep#"));
		assertThat(this.book.size()).as("a and b, held by their consumers").isEqualTo(2);
	}

	/**
	 * An item of the application's whose {@code hashCode} throws can never be held: it
	 * goes to the dead letters as an undecodable one does, and the rest of its claim is
	 * handed out (thrown, it left them leased to nobody until their leases ran out).
	 */
	@Test
	void anItemWhoseHashCodeThrowsGoesToTheDeadLettersAndTheRestOfItsClaimIsHandedOut() throws Exception {
		LeaseBook<Object, TestLease> objects = new LeaseBook<>();
		ItemTaker<Object, TestLease> objectTaker = objectTaker(objects);
		this.store.answers.add(List.of("unhashable", "a"));
		assertThat(objectTaker.take(true, 0, null, null, null).item()).isEqualTo("a");
		assertThat(this.store.calls).containsExactly("claim 1", "deadLetter unhashable#1", "taken");
		assertThat(objectTaker.deadLettered()).isOne();
		assertThat(objects.size()).isOne();
	}

	/**
	 * The same for an item whose {@code equals} throws when the book compares it with a
	 * held item of the same hash, on its way ahead for a waiting consumer.
	 */
	@Test
	void anItemWhoseEqualsThrowsGoesToTheDeadLettersAndTheRestOfItsClaimGoesAhead() throws Exception {
		LeaseBook<Object, TestLease> objects = new LeaseBook<>();
		ItemTaker<Object, TestLease> objectTaker = objectTaker(objects);
		this.store.answers.add(List.of("unequal-1", "unequal-2", "a"));
		assertThat(objectTaker.take(true, 0, null, null, null).item()).isInstanceOf(Unequal.class);
		assertThat(this.store.calls).containsExactly("claim 1", "deadLetter unequal-2#2", "taken",
				"handBackInPlace [a#3]");
		assertThat(objects.size()).as("unequal-1, held").isOne();
	}

	/**
	 * A taker of items of any type: "unhashable" decodes to an item whose
	 * {@code hashCode} throws, "unequal-" to one whose {@code equals} throws for any
	 * other item, all with one hash; the rest to their text.
	 */
	private ItemTaker<Object, TestLease> objectTaker(LeaseBook<Object, TestLease> objects) {
		ItemCodec<Object> codec = new ItemCodec<>() {

			@Override
			public String encode(Object item) {
				return item.toString();
			}

			@Override
			public Object decode(String encoded) {
				if (encoded.equals("unhashable")) {
					return new Unhashable();
				}
				return encoded.startsWith("unequal-") ? new Unequal() : encoded;
			}

		};
		return new ItemTaker<>(codec, this.store, objects,
				new LeaseReleases<>(this.store, objects, this.lifecycle, WorkQueueMetrics.NOOP, this.clock, () -> {
				}), this.signal, this.lifecycle, WorkQueueMetrics.NOOP, this.clock, LEASE_NANOS);
	}

	@Test
	void aClaimAnsweredAfterShutdownHandsItsItemsBackUndecoded() throws Exception {
		this.store.answers.add(List.of("bad", "a"));
		this.store.onClaim = this.lifecycle::shutDown;
		assertThat(poll()).isNull();
		assertThat(this.store.calls).containsExactly("claim 1", "handBackInPlace [bad#1, a#2]", "taken");
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void aConsumerWaitingAfterAShortClaimWhileItemsRemainLooksAgainAtTheLookInterval() throws Exception {
		long lookIntervalNanos = Duration.ofSeconds(1).toNanos();
		ReadySignal timed = new ReadySignal(this.clock, StoreWakeups.everyNotice(lookIntervalNanos), null);
		ItemTaker<String, TestLease> taker = new ItemTaker<>(this.codec, this.store, this.book, this.releases, timed,
				this.lifecycle, WorkQueueMetrics.NOOP, this.clock, LEASE_NANOS);
		// The first claim comes back short while an item is ready (its row locked by
		// another statement, skipped), and no add follows to notify anyone.
		this.store.answers.add(List.of());
		this.store.answers.add(List.of("a"));
		CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				return taker.take(false, 0, null, null, null).item();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> timed.waiting() == 1 && this.clock.hasWaiters());
		assertThat(timed.knownEmpty(timed.epoch())).as("marked empty by the short claim").isTrue();
		this.clock.step(Duration.ofNanos(lookIntervalNanos));
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("a");
		assertThat(this.store.calls).containsExactly("claim 1", "taken", "claim 1", "taken");
	}

	@Test
	void aDrainWaitsForAClaimBeingTakenInHandAndThenForItsItem() throws Exception {
		this.store.answers.add(List.of("gated"));
		CompletableFuture<String> taking = takeAsync();
		assertThat(this.decoding.await(5, TimeUnit.SECONDS)).isTrue();
		// The claim is answered, its item not booked yet: the book is empty.
		int shutDowns = this.lifecycle.shutDownForDrain();
		CompletableFuture<Void> drain = CompletableFuture
			.runAsync(() -> this.lifecycle.awaitDrained(shutDowns, this.book::isEmpty));
		await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !drain.isDone());
		this.decoded.countDown();
		assertThat(taking.get(5, TimeUnit.SECONDS)).isEqualTo("gated");
		assertThat(drain).as("the item handed out is held").isNotDone();
		this.releases.done("gated");
		drain.get(5, TimeUnit.SECONDS);
	}

	@Test
	void theItemsAnAddLeasedForTheWaitingConsumersGoToThemAhead() throws Exception {
		CompletableFuture<String> waiting = takeAsync();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.signal.waiting() == 1);
		assertThat(this.taker.reserveForAdds()).isOne();
		assertThat(this.taker.reserveForAdds()).as("reserved already").isZero();
		this.taker.takeAdded(this.store.leased(List.of("a"), this.clock.nanoTime()), 1, this.clock.nanoTime());
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("a");
		assertThat(this.store.calls).as("no claim but the consumer's first look")
			.containsExactly("claim 1", "taken", "taken");
		assertThat(this.book.size()).isOne();
		assertThat(this.taker.reserveForAdds()).as("nobody waits").isZero();
	}

	@Test
	void aClaimLeasesNothingAheadForTheConsumersAnAddReserved() throws Exception {
		CompletableFuture<String> waiting = takeAsync();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.signal.waiting() == 1);
		assertThat(this.taker.reserveForAdds()).isOne();
		assertThat(poll()).isNull();
		// The add leased nothing: its reservation ends, and a claim counts the waiting
		// consumer again.
		this.taker.takeAdded(null, 1, this.clock.nanoTime());
		this.store.answers.add(List.of("a", "b"));
		assertThat(poll()).isEqualTo("a");
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("b");
		assertThat(this.store.calls).as("the waiting consumer's first look, then the polls")
			.containsExactly("claim 1", "taken", "claim 1", "taken", "claim 2", "taken");
	}

	@Test
	void theItemsAnAddLeasedAreHandedBackWhenNoConsumerIsLeftToTakeThem() throws Exception {
		CompletableFuture<String> waiting = takeAsync(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.signal.waiting() == 1);
		assertThat(this.taker.reserveForAdds()).isOne();
		// The consumer reserved for leaves (its deadline) before the add's answer comes.
		this.clock.step(Duration.ofSeconds(1));
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isNull();
		this.store.calls.clear();
		this.taker.takeAdded(this.store.leased(List.of("a"), this.clock.nanoTime()), 1, this.clock.nanoTime());
		assertThat(this.store.calls).containsExactly("handBackInPlace [a#1]", "taken");
		assertThat(this.taker.aheadEncodings()).isEmpty();
		assertThat(this.taker.reserveForAdds()).isZero();
	}

	@Test
	void anAddAnsweredAfterShutdownHandsItsItemsBackUndecoded() throws Exception {
		this.lifecycle.shutDown();
		this.taker.takeAdded(this.store.leased(List.of("bad", "a"), this.clock.nanoTime()), 0, this.clock.nanoTime());
		assertThat(this.store.calls).containsExactly("handBackInPlace [bad#1, a#2]", "taken");
		assertThat(this.book.isEmpty()).isTrue();
	}

	private CompletableFuture<String> takeAsync() {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return this.taker.take(false, 0, null, null, null).item();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	/** A take bounded by {@code timeout}: the item, or {@code null}. */
	private CompletableFuture<String> takeAsync(Duration timeout) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				Prioritized<String> taken = this.taker.take(true, timeout.toNanos(), null, null, null);
				return (taken != null) ? taken.item() : null;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	private String poll() throws InterruptedException {
		Prioritized<String> taken = this.taker.take(true, 0, null, null, null);
		return (taken != null) ? taken.item() : null;
	}

	/** One lease as the calls name it, several as a list. */
	private static String leases(List<TestLease> leases) {
		return (leases.size() == 1) ? leases.get(0).toString() : leases.toString();
	}

	/**
	 * An item whose {@code equals} throws for any other item, as a broken one of an
	 * application's may; every one has the same hash.
	 */
	private static final class Unequal {

		@Override
		public int hashCode() {
			return 7;
		}

		@Override
		public boolean equals(Object other) {
			if (this != other) {
				throw new ClassCastException("equals broke");
			}
			return true;
		}

	}

	/** An item whose {@code hashCode} throws, as a broken one of an application's may. */
	private static final class Unhashable {

		@Override
		public int hashCode() {
			throw new IllegalStateException("hashCode broke");
		}

		@Override
		public boolean equals(Object other) {
			return this == other;
		}

	}

	/** A store that answers claims from a script, and records every call. */
	private static void awaitUninterruptibly(CountDownLatch latch) {
		try {
			if (!latch.await(5, TimeUnit.SECONDS)) {
				throw new IllegalStateException("not released in time");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private final class FakeStore implements ClaimDriver<TestLease>, ReleaseDriver<TestLease> {

		final List<String> calls = new ArrayList<>();

		final Deque<List<String>> answers = new ArrayDeque<>();

		boolean confirms = true;

		boolean doneFails;

		Runnable onClaim = () -> {
		};

		private long deadLettered;

		private long tokens;

		@Override
		public int claimLimit() {
			return 4;
		}

		@Override
		public Claim<TestLease> claim(int count, List<TestLease> owedDones, long sentNanos) {
			this.calls.add("claim " + count + (owedDones.isEmpty() ? "" : " done " + leases(owedDones)));
			List<String> items = (this.answers.isEmpty()) ? List.of() : this.answers.poll();
			Claim<TestLease> claim = leased(items, sentNanos);
			this.onClaim.run();
			return claim;
		}

		/**
		 * The answer of a store call that leased {@code items}, each under a new token.
		 */
		Claim<TestLease> leased(List<String> items, long sentNanos) {
			long firstToken = this.tokens + 1;
			this.tokens += items.size();
			return new Claim<>() {

				@Override
				public int size() {
					return items.size();
				}

				@Override
				public String encoded(int n) {
					return items.get(n);
				}

				@Override
				public int priority(int n) {
					return 0;
				}

				@Override
				public long queuedNanos(int n) {
					return 0;
				}

				@Override
				public ItemTrace trace(int n) {
					return null;
				}

				@Override
				public long dueInNanos() {
					return -1;
				}

				@Override
				public TestLease lease(int n, long nowNanos) {
					return new TestLease(items.get(n), firstToken + n, nowNanos, sentNanos + LEASE_NANOS);
				}

				@Override
				public boolean confirm(int n, long elapsedNanos) {
					FakeStore.this.calls.add("confirm " + items.get(n) + "#" + (firstToken + n));
					return FakeStore.this.confirms;
				}

				@Override
				public void deadLetter(int n, Throwable cause) {
					FakeStore.this.deadLettered++;
					FakeStore.this.calls.add("deadLetter " + items.get(n) + "#" + (firstToken + n));
				}

				@Override
				public void taken() {
					FakeStore.this.calls.add("taken");
				}

			};
		}

		@Override
		public String who() {
			return "Fake store";
		}

		@Override
		public long deadLettered() {
			return this.deadLettered;
		}

		@Override
		public void done(List<TestLease> leases) {
			if (this.doneFails) {
				throw new IllegalStateException("done failed");
			}
			this.calls.add("done " + leases(leases));
		}

		@Override
		public void handBack(TestLease lease, long delayNanos) {
			this.calls.add("handBack " + lease + " after " + delayNanos);
		}

		@Override
		public List<TestLease> handBackInPlace(List<TestLease> leases) {
			this.calls.add("handBackInPlace " + leases);
			return List.of();
		}

	}

}
