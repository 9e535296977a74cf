package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class LeaseReleasesTests {

	private final LeaseBook<String, TestLease> book = new LeaseBook<>();

	private final RecordingDriver driver = new RecordingDriver();

	private final HandleLifecycle lifecycle = new HandleLifecycle(() -> {
	});

	private final AtomicInteger orphaned = new AtomicInteger();

	private final List<Long> durations = new ArrayList<>();

	private final FakeClock clock = new FakeClock();

	private final LeaseReleases<String, TestLease> releases = new LeaseReleases<>(this.driver, this.book,
			this.lifecycle, new RecordingMetrics(), this.clock, this.orphaned::incrementAndGet);

	@Test
	void doneEndsTheLiveLeaseInTheStoreAndRecordsTheDuration() {
		TestLease lease = lease("a", 1);
		this.clock.step(Duration.ofNanos(30));
		this.releases.done("a");
		assertThat(this.driver.calls).containsExactly("done a#1");
		assertThat(this.durations).containsExactly(30L);
		assertThat(this.book.isEmpty()).isTrue();
		assertThat(lease.token).isOne();
	}

	@Test
	void doneOfAnItemClaimedAheadAndNotHandedOutChangesNothing() {
		TestLease lease = new TestLease("a", 1, this.clock.nanoTime(), Long.MAX_VALUE);
		this.book.takeAhead("a", lease);
		this.releases.done("a");
		assertThat(this.driver.calls).isEmpty();
		assertThat(this.book.live()).containsExactly(lease);
	}

	@Test
	void doneOfALostLeaseChangesNothingInTheStore() {
		TestLease lease = lease("a", 1);
		this.book.renewed(List.of(lease), (renewed) -> false, 0);
		this.releases.done("a");
		assertThat(this.driver.calls).isEmpty();
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void doneOfAParkedItemHandsTheParkedLeaseBackAtOnce() {
		lease("a", 1);
		lease("a", 2);
		this.releases.done("a");
		assertThat(this.driver.calls).containsExactly("handBack a#2 after 0");
	}

	@Test
	void doneHandsTheCopiesBackAndEndsTheWorkersLease() {
		lease("a", 1);
		lease("A", 2);
		this.releases.done("a");
		assertThat(this.driver.calls).containsExactly("handBack A#2 after 0", "done a#1");
	}

	@Test
	void doneForTheNextTakeKeepsTheLeaseEndingUntilItWasSent() {
		TestLease lease = lease("a", 1);
		assertThat(this.releases.finishForNextTake("a")).isSameAs(lease);
		assertThat(this.book.live()).containsExactly(lease);
		assertThat(this.releases.handBack("a", Duration.ZERO)).isFalse();
		this.releases.doneSent(lease);
		assertThat(this.book.isEmpty()).isTrue();
		assertThat(this.driver.calls).isEmpty();
	}

	@Test
	void failedDoneStillEndsTheHold() {
		TestLease lease = lease("a", 1);
		this.driver.failing = true;
		assertThatIllegalStateException().isThrownBy(() -> this.releases.done("a"));
		assertThat(this.book.isEmpty()).isTrue();
		assertThat(this.book.hasOrphans()).isFalse();
		assertThat(lease.token).isOne();
	}

	@Test
	void handBackOfAHeldItemWaitsTheDelayButAParkedLeaseGoesBackAtOnce() {
		lease("a", 1);
		lease("b", 2);
		lease("b", 3);
		assertThat(this.releases.handBack("a", Duration.ofNanos(5))).isTrue();
		assertThat(this.releases.handBack("b", Duration.ofNanos(5))).isTrue();
		assertThat(this.releases.handBack("c", Duration.ofNanos(5))).isFalse();
		assertThat(this.driver.calls).containsExactly("handBack a#1 after 5", "handBack b#3 after 0");
	}

	@Test
	void handBackAllHandsBackEveryLiveLeaseAndCopyInOneCall() {
		lease("a", 1);
		lease("A", 2);
		TestLease lost = lease("b", 3);
		this.book.renewed(List.of(lost), (renewed) -> false, 0);
		assertThat(this.releases.handBackAll()).isEqualTo(2);
		assertThat(this.driver.calls).containsExactly("handBackInPlace [A#2, a#1]");
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void failedHandBacksAreOrphansForTheTimedWork() {
		lease("a", 1);
		lease("b", 2);
		this.driver.failing = true;
		assertThatIllegalStateException().isThrownBy(() -> this.releases.handBack("a", Duration.ZERO));
		assertThatIllegalStateException().isThrownBy(this.releases::handBackAll);
		assertThat(this.book.takeOrphans()).extracting((lease) -> lease.token).containsExactlyInAnyOrder(1L, 2L);
		assertThat(this.orphaned).hasValue(2);
	}

	@Test
	void leasesAHandBackLeftHeldAreOrphansForTheTimedWork() {
		lease("a", 1);
		lease("b", 2);
		lease("c", 3);
		this.driver.locked.add(2L);
		assertThat(this.releases.handBackAll()).isEqualTo(3);
		assertThat(this.book.isEmpty()).isTrue();
		assertThat(this.book.takeOrphans()).extracting((lease) -> lease.token).containsExactly(2L);
		assertThat(this.orphaned).hasValue(1);
	}

	@Test
	void holdEndedWithoutADoneForgetsTheDeferredHistory() {
		TestLease lease = lease("a", 1);
		this.book.deferForget("a", "limiter");
		this.releases.handBackUnused("a", lease);
		assertThat(this.driver.calls).containsExactly("forget a#1 [limiter]", "handBackInPlace [a#1]");
	}

	/**
	 * The deferred forget goes before the parked lease goes back: once back, another
	 * instance may take the item and count a failure, which a forget after would erase.
	 */
	@Test
	void aDoneForTheNextTakeOfAParkedItemForgetsBeforeTheItemGoesBack() {
		lease("a", 1);
		this.book.deferForget("a", "limiter");
		lease("a", 2);
		assertThat(this.releases.finishForNextTake("a")).isNull();
		assertThat(this.driver.calls).containsExactly("forget a#1 [limiter]", "handBack a#2 after 0");
	}

	@Test
	void aForgetThatFailsStillHandsTheParkedLeaseBackAndThenFails() {
		lease("a", 1);
		this.book.deferForget("a", "limiter");
		lease("a", 2);
		this.driver.forgetFails = true;
		assertThatIllegalStateException().isThrownBy(() -> this.releases.finishForNextTake("a"))
			.withMessageContaining("forget");
		assertThat(this.driver.calls).containsExactly("handBack a#2 after 0");
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void aForgetThatFailsStillHandsEveryHoldBackAndThenFails() {
		lease("a", 1);
		lease("b", 2);
		this.book.deferForget("a", "limiter");
		this.book.deferForget("b", "limiter");
		this.driver.forgetFails = true;
		assertThatIllegalStateException().isThrownBy(this.releases::handBackAll).withMessageContaining("forget");
		assertThat(this.driver.calls).containsExactly("handBackInPlace [a#1, b#2]");
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void aForgetThatFailsStillHandsTheItemBackAndThenFails() {
		lease("a", 1);
		this.book.deferForget("a", "limiter");
		this.driver.forgetFails = true;
		assertThatIllegalStateException().isThrownBy(() -> this.releases.handBack("a", Duration.ofSeconds(1)))
			.withMessageContaining("forget");
		assertThat(this.driver.calls).containsExactly("handBack a#1 after 1000000000");
	}

	@Test
	void lastHoldEndedReleasesADrain() {
		lease("a", 1);
		lease("b", 2);
		int shutDowns = this.lifecycle.shutDownForDrain();
		CompletableFuture<Void> drain = CompletableFuture
			.runAsync(() -> this.lifecycle.awaitDrained(shutDowns, this.book::isEmpty));
		this.releases.done("a");
		assertThat(drain).isNotDone();
		this.releases.done("b");
		assertThat(drain).succeedsWithin(Duration.ofSeconds(10));
	}

	private TestLease lease(String encoded, long token) {
		TestLease lease = new TestLease(encoded, token, this.clock.nanoTime(), Long.MAX_VALUE);
		this.book.take(encoded.toLowerCase(), lease);
		return lease;
	}

	private final class RecordingMetrics implements WorkQueueMetrics {

		@Override
		public boolean recordsDurations() {
			return true;
		}

		@Override
		public void done(long workNanos) {
			LeaseReleasesTests.this.durations.add(workNanos);
		}

	}

	private static final class RecordingDriver implements ReleaseDriver<TestLease> {

		final List<String> calls = new ArrayList<>();

		/** The tokens of the leases whose records another transaction locks. */
		final List<Long> locked = new ArrayList<>();

		boolean failing;

		boolean forgetFails;

		@Override
		public void done(List<TestLease> leases) {
			leases.forEach((lease) -> record("done " + lease));
		}

		@Override
		public void handBack(TestLease lease, long delayNanos) {
			record("handBack " + lease + " after " + delayNanos);
		}

		@Override
		public List<TestLease> handBackInPlace(List<TestLease> leases) {
			record("handBackInPlace " + leases);
			return leases.stream().filter((lease) -> this.locked.contains(lease.token)).toList();
		}

		@Override
		public void forget(TestLease lease) {
			if (this.forgetFails) {
				throw new IllegalStateException("forget " + lease + " failed");
			}
			record("forget " + lease + " " + List.of(lease.forgets()));
		}

		private void record(String call) {
			if (this.failing) {
				throw new IllegalStateException(call + " failed");
			}
			this.calls.add(call);
		}

	}

}
