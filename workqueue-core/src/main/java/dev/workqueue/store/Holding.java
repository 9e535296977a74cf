package dev.workqueue.store;

import java.util.ArrayList;
import java.util.List;

/**
 * What a handle holds of one item, in its {@link LeaseBook}: the lease its worker has,
 * whether that was found lost, a parked lease, the copies under other encodings, and
 * whether its done is under way. Changed only inside the book's per-item operations; the
 * fields are volatile for readers outside them.
 *
 * @param <L> the store's lease type
 */
final class Holding<L extends Lease> {

	final L lease;

	volatile boolean lost;

	volatile L parked;

	/** Replaced, never changed, inside the map's atomic operation on the item. */
	volatile List<L> copies = List.of();

	/** Its done is under way: set once, inside the map's operations. */
	volatile boolean ending;

	/**
	 * Claimed ahead for a waiting consumer and not handed out yet: no worker holds the
	 * item, so a {@code done} or a hand-back of it leaves this hold alone. Cleared once,
	 * inside the map's operations, when a consumer takes it.
	 */
	volatile boolean ahead;

	Holding(L lease) {
		this.lease = lease;
	}

	/** The lease the store holds for this handle now, or {@code null}. */
	L live() {
		L parked = this.parked;
		return (parked != null) ? parked : (this.lost ? null : this.lease);
	}

	/** A new list of the copies with one added, in place of one of its encoding. */
	List<L> withCopy(L copy) {
		List<L> copies = new ArrayList<>(this.copies.size() + 1);
		for (L held : this.copies) {
			if (!held.encoded().equals(copy.encoded())) {
				copies.add(held);
			}
		}
		copies.add(copy);
		return List.copyOf(copies);
	}

}
