package dev.workqueue.postgres;

/**
 * The seam between the two kinds of queue on one engine: the order in which ready items
 * are handed out, and whether an add keeps a wait that it overtakes. Everything else
 * (leases, fencing, dirty marks, shutdown) is the same for both.
 */
enum ReadyOrder {

	/**
	 * A plain (delaying) queue: FIFO by the moment an item became ready (index
	 * {@code <name>_due}). As client-go's delaying queue, whose waiting items live apart
	 * from the queue, an add that makes a waiting item ready keeps its wait (the item
	 * comes again when it falls due), and a delayed add of a ready item is a wait of its
	 * own.
	 */
	FIFO("%1$s.ready_at, %1$s.seq", true),

	/**
	 * A priority queue: highest priority first, FIFO within a priority (index
	 * {@code <name>_ready}). Waits fold into the item's one entry: the earliest ready
	 * time and the highest priority of its adds.
	 */
	PRIORITY("%1$s.priority DESC, %1$s.ready_at, %1$s.seq", false);

	private final String orderBy;

	private final boolean keepsWaits;

	ReadyOrder(String orderBy, boolean keepsWaits) {
		this.orderBy = orderBy;
		this.keepsWaits = keepsWaits;
	}

	/**
	 * The {@code ORDER BY} list of the hand-out order.
	 * @param alias the table's alias in the query
	 * @return the list
	 */
	String orderBy(String alias) {
		return String.format(this.orderBy, alias);
	}

	/**
	 * Whether an add that overtakes a wait keeps it, as a wait of its own ({@code FIFO}).
	 * @return whether waits are kept
	 */
	boolean keepsWaits() {
		return this.keepsWaits;
	}

}
