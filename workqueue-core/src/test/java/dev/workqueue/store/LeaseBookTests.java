package dev.workqueue.store;

import java.util.List;

import dev.workqueue.store.LeaseBook.Taken;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseBookTests {

	private final LeaseBook<String, TestLease> book = new LeaseBook<>();

	@Test
	void newLeaseIsHeldAndRenewed() {
		TestLease lease = new TestLease("a", 1);
		assertThat(this.book.take("a", lease)).isEqualTo(Taken.HELD);
		assertThat(this.book.live()).containsExactly(lease);
		assertThat(this.book.size()).isOne();
		assertThat(this.book.heldEncoding("a")).isEqualTo("a");
	}

	@Test
	void itemLeasedAnewWhileHeldIsParkedAndRenewedInsteadOfTheLostLease() {
		TestLease first = new TestLease("a", 1);
		TestLease again = new TestLease("a", 2);
		this.book.take("a", first);
		assertThat(this.book.take("a", again)).isEqualTo(Taken.PARKED);
		assertThat(this.book.live()).containsExactly(again);
		assertThat(this.book.known()).containsExactlyInAnyOrder(first, again);
	}

	@Test
	void doneOfAParkedItemEndsTheHoldAtOnceWithTheParkedLeaseToHandBack() {
		TestLease first = new TestLease("a", 1);
		TestLease again = new TestLease("a", 2);
		this.book.take("a", first);
		this.book.take("a", again);
		Holding<TestLease> holding = this.book.finishForDone("a");
		assertThat(holding.ending).isFalse();
		assertThat(holding.parked).isSameAs(again);
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void equalItemUnderAnotherEncodingIsHeldAsideAndLeavesTheWorkersLeaseLive() {
		TestLease lease = new TestLease("a", 1);
		TestLease copy = new TestLease("A", 2);
		this.book.takeAhead("a", lease);
		assertThat(this.book.take("a", copy)).isEqualTo(Taken.OTHER_ENCODING);
		assertThat(this.book.live()).containsExactlyInAnyOrder(lease, copy);
		assertThat(this.book.known()).containsExactlyInAnyOrder(lease, copy);
		assertThat(this.book.handOut("a", copy, 0, 0)).isFalse();
		assertThat(this.book.handOut("a", lease, 0, 0)).isTrue();
	}

	@Test
	void leaseClaimedAheadIsNoWorkersUntilHandedOut() {
		TestLease lease = new TestLease("a", 1);
		assertThat(this.book.takeAhead("a", lease)).isEqualTo(Taken.HELD);
		assertThat(this.book.finishForDone("a")).as("a done of an item no worker holds").isNull();
		assertThat(this.book.finish("a")).as("a hand-back of an item no worker holds").isNull();
		assertThat(this.book.live()).containsExactly(lease);
		assertThat(this.book.handOut("a", lease, 0, 0)).isTrue();
		assertThat(this.book.handOut("a", lease, 0, 0)).as("handed out once").isFalse();
		assertThat(this.book.finishForDone("a").ending).isTrue();
	}

	@Test
	void leaseClaimedAheadIsHandedBackOnlyWhileItIsTheItemsHold() {
		TestLease ahead = new TestLease("a", 1);
		this.book.takeAhead("a", ahead);
		assertThat(this.book.finishAhead("a", ahead).lease).isSameAs(ahead);
		TestLease worker = new TestLease("a", 2);
		this.book.take("a", worker);
		assertThat(this.book.finishAhead("a", ahead)).as("another lease holds it now").isNull();
		assertThat(this.book.live()).containsExactly(worker);
		TestLease again = new TestLease("a", 3);
		this.book.takeAhead("b", again);
		assertThat(this.book.finishAll()).as("a shutdown hands back both").hasSize(2);
	}

	@Test
	void copyLeasedAnewReplacesTheCopyOfItsEncoding() {
		this.book.take("a", new TestLease("a", 1));
		this.book.take("a", new TestLease("A", 2));
		TestLease newer = new TestLease("A", 3);
		this.book.take("a", newer);
		assertThat(this.book.finish("a").copies).containsExactly(newer);
	}

	@Test
	void leaseWhoseDoneIsUnderWayStaysRenewedAndKnownButIsNeitherHandedBackNorOut() {
		TestLease lease = new TestLease("a", 1);
		this.book.take("a", lease);
		Holding<TestLease> ending = this.book.finishForDone("a");
		assertThat(ending.ending).isTrue();
		assertThat(this.book.live()).containsExactly(lease);
		assertThat(this.book.known()).containsExactly(lease);
		assertThat(this.book.finish("a")).isNull();
		assertThat(this.book.finishAll()).isEmpty();
		assertThat(this.book.finishForDone("a")).isNull();
		assertThat(this.book.handOut("a", lease, 0, 0)).isFalse();
		assertThat(this.book.isEmpty()).isFalse();
		this.book.ended(lease);
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void itemLeasedAnewWhileItsDoneIsUnderWayIsNewAndOutlivesTheEnd() {
		TestLease lease = new TestLease("a", 1);
		TestLease again = new TestLease("a", 2);
		this.book.take("a", lease);
		this.book.finishForDone("a");
		assertThat(this.book.take("a", again)).isEqualTo(Taken.HELD);
		this.book.ended(lease);
		assertThat(this.book.live()).containsExactly(again);
	}

	@Test
	void lostLeaseIsMarkedLostAndDoneChangesNothing() {
		TestLease lease = new TestLease("a", 1);
		this.book.take("a", lease);
		assertThat(this.book.renewed(List.of(lease), (renewed) -> false, 10)).isOne();
		assertThat(this.book.live()).isEmpty();
		Holding<TestLease> holding = this.book.finishForDone("a");
		assertThat(holding.lost).isTrue();
		assertThat(holding.ending).isFalse();
		assertThat(this.book.isEmpty()).isTrue();
	}

	@Test
	void renewalExtendsTheValidityOfTheLeasesItKept() {
		TestLease kept = new TestLease("a", 1, 0, 5);
		TestLease lost = new TestLease("b", 2, 0, 5);
		this.book.takeAhead("a", kept);
		this.book.takeAhead("b", lost);
		assertThat(this.book.renewed(List.of(kept, lost), (lease) -> lease == kept, 50)).isOne();
		assertThat(kept.validUntilNanos()).isEqualTo(50);
		assertThat(lost.validUntilNanos()).isEqualTo(5);
		assertThat(this.book.handOut("a", kept, 46, 5)).isFalse();
		assertThat(this.book.handOut("b", lost, 0, 0)).isFalse();
		assertThat(this.book.handOut("a", kept, 40, 5)).isTrue();
	}

	@Test
	void renewalSparesTheLeaseWhoseDoneIsUnderWay() {
		TestLease lease = new TestLease("a", 1);
		this.book.take("a", lease);
		this.book.finishForDone("a");
		assertThat(this.book.renewed(List.of(lease), (renewed) -> false, 10)).isZero();
	}

	@Test
	void renewalDropsLostParkedLeasesAndCopies() {
		TestLease parkedItem = new TestLease("p", 1);
		TestLease parked = new TestLease("p", 2);
		TestLease worker = new TestLease("c", 3);
		TestLease copy = new TestLease("C", 4);
		this.book.take("p", parkedItem);
		this.book.take("p", parked);
		this.book.take("c", worker);
		this.book.take("c", copy);
		assertThat(this.book.renewed(List.of(parked, copy), (lease) -> false, 10)).isEqualTo(2);
		assertThat(this.book.live()).containsExactly(worker);
	}

	@Test
	void forgetIsDeferredToALiveLeaseOnlyAndCanBeTakenBack() {
		TestLease lease = new TestLease("a", 1);
		assertThat(this.book.deferForget("a", "limiter")).isFalse();
		this.book.take("a", lease);
		assertThat(this.book.deferForget("a", "limiter")).isTrue();
		assertThat(this.book.deferForget("a", "limiter")).isTrue();
		assertThat(this.book.deferForget("a", "retries")).isTrue();
		assertThat(lease.forgets()).containsExactly("limiter", "retries");
		assertThat(this.book.takeForget("a", "limiter")).isTrue();
		assertThat(this.book.takeForget("a", "limiter")).isFalse();
		assertThat(lease.forgets()).containsExactly("retries");
		this.book.take("a", new TestLease("a", 2));
		assertThat(this.book.deferForget("a", "limiter")).isFalse();
	}

	@Test
	void orphansAreTakenOnceAndKnown() {
		TestLease orphan = new TestLease(null, 7);
		this.book.orphan(orphan);
		assertThat(this.book.hasOrphans()).isTrue();
		assertThat(this.book.isEmpty()).isTrue();
		assertThat(this.book.known()).containsExactly(orphan);
		assertThat(this.book.takeOrphans()).containsExactly(orphan);
		assertThat(this.book.takeOrphans()).isEmpty();
		assertThat(this.book.hasOrphans()).isFalse();
	}

	@Test
	void finishAllEndsEveryHoldButTheEndingOnes() {
		this.book.take("a", new TestLease("a", 1));
		this.book.take("b", new TestLease("b", 2));
		this.book.take("c", new TestLease("c", 3));
		this.book.finishForDone("c");
		assertThat(this.book.finishAll()).extracting((holding) -> holding.lease.encoded())
			.containsExactlyInAnyOrder("a", "b");
		assertThat(this.book.size()).isOne();
	}

	@Test
	void processingTimesAreSummedWithTheLongest() {
		this.book.take("a", new TestLease("a", 1, 10, 0));
		this.book.take("b", new TestLease("b", 2, 40, 0));
		assertThat(this.book.processingNanos(100)).containsExactly(150, 90);
	}

}
