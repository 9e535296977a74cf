package dev.workqueue.shared;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger of {@link SharedQueueContract}'s "never two live holders" finds what it
 * must: an overlap no fault explains.
 */
class HoldLedgerTests {

	private final HoldLedger ledger = new HoldLedger();

	@Test
	void aHoldThatBeginsInsideAnotherHandlesLiveHoldIsAViolation() {
		this.ledger.held("x", 0, 100_000_000, 500_000_000);
		this.ledger.held("x", 1, 200_000_000, 300_000_000);
		assertThat(this.ledger.violations())
			.containsExactly("x handed to handle 1 100 ms into the live hold of handle 0");
		assertThat(this.ledger.itemsHeldAgain()).isOne();
	}

	@Test
	void aHoldThatBeginsAfterAFaultOfTheEarlierHolderIsNone() {
		this.ledger.held("x", 0, 100_000_000, 500_000_000);
		this.ledger.faulted(0, 150_000_000);
		this.ledger.held("x", 1, 200_000_000, 300_000_000);
		assertThat(this.ledger.violations()).isEmpty();
	}

	@Test
	void aFaultOfAnotherHandleOrAfterTheLaterHoldBeganExplainsNothing() {
		this.ledger.held("x", 0, 100_000_000, 500_000_000);
		this.ledger.faulted(1, 150_000_000);
		this.ledger.faulted(0, 250_000_000);
		this.ledger.held("x", 1, 200_000_000, 300_000_000);
		assertThat(this.ledger.violations()).hasSize(1);
	}

	@Test
	void holdsOneAfterTheOtherAndHoldsOfOtherItemsAreNone() {
		this.ledger.held("x", 0, 100_000_000, 200_000_000);
		this.ledger.held("x", 1, 200_000_000, 300_000_000);
		this.ledger.held("y", 1, 150_000_000, 250_000_000);
		assertThat(this.ledger.violations()).isEmpty();
	}

}
