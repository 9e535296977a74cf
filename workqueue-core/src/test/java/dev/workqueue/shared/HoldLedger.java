package dev.workqueue.shared;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An external record of who held which item when, for "never two live holders": each hold
 * runs from the moment {@code get} handed the item to a handle until its {@code done}
 * returned (or failed), in {@link System#nanoTime()}, and each fault the test made on a
 * handle's link has a start and an end. Two holds of one item that overlap are a
 * violation unless the earlier holder lost its lease to a fault: a fault of its handle
 * lasted into its hold and began before the later hold began (a holder's lease can only
 * run out after its renewals stopped reaching the store; an item claimed ahead is handed
 * out without a round trip, so a hold can begin while its link is already stalled).
 * Thread-safe: every method locks the ledger.
 */
public final class HoldLedger {

	/** One hold: the handle's index, from when to when. */
	record Hold(String item, int handle, long from, long until) {
	}

	private final List<Hold> holds = new ArrayList<>();

	private final List<long[]> faults = new ArrayList<>();

	/**
	 * Records a hold that ended.
	 * @param item the item
	 * @param handle the holding handle's index
	 * @param from when {@code get} returned it
	 * @param until when its {@code done} returned or failed
	 */
	public synchronized void held(String item, int handle, long from, long until) {
		this.holds.add(new Hold(item, handle, from, until));
	}

	/**
	 * Records a fault of a handle's link that took no time (a cut).
	 * @param handle the handle's index
	 * @param at when, in {@link System#nanoTime()}
	 */
	public void faulted(int handle, long at) {
		faulted(handle, at, at);
	}

	/**
	 * Records a fault of a handle's link that lasted (a stall).
	 * @param handle the handle's index
	 * @param from when it began, in {@link System#nanoTime()}
	 * @param until when it ended
	 */
	public synchronized void faulted(int handle, long from, long until) {
		this.faults.add(new long[] { handle, from, until });
	}

	/** How many holds were recorded. */
	public synchronized int holds() {
		return this.holds.size();
	}

	/** How many items were held more than once (handed out again after a lost lease). */
	public synchronized long itemsHeldAgain() {
		return this.holds.stream()
			.collect(Collectors.groupingBy(Hold::item, Collectors.counting()))
			.values()
			.stream()
			.filter((count) -> count > 1)
			.count();
	}

	/**
	 * The overlaps of two holds of one item that no fault of the earlier holder explains.
	 * @return one line per violation
	 */
	public synchronized List<String> violations() {
		List<String> violations = new ArrayList<>();
		Map<String, List<Hold>> byItem = this.holds.stream().collect(Collectors.groupingBy(Hold::item));
		for (List<Hold> holds : byItem.values()) {
			for (Hold earlier : holds) {
				for (Hold later : holds) {
					if (earlier != later && earlier.from() <= later.from() && later.from() < earlier.until()
							&& !lostToAFault(earlier, later.from())) {
						violations.add(later.item() + " handed to handle " + later.handle() + " "
								+ (later.from() - earlier.from()) / 1_000_000 + " ms into the live hold of handle "
								+ earlier.handle());
					}
				}
			}
		}
		return violations;
	}

	private boolean lostToAFault(Hold hold, long before) {
		return this.faults.stream()
			.anyMatch((fault) -> fault[0] == hold.handle() && fault[2] >= hold.from() && fault[1] < before);
	}

}
