package dev.workqueue.store;

/**
 * One lease a handle of a shared store holds on an item: the item's identity in the
 * store, when it began, until when it surely holds, and the limiter history deferred to
 * its {@code done}. Each store extends it with its token (the fence its releases name).
 * Part of the shared-store engine, used by store modules; may change before 1.0.
 * <p>
 * Thread-safe: the identity and the start are final; the validity, the deferred history
 * and the item of a done under way are volatile, written by the {@link LeaseBook} only.
 */
public abstract class Lease {

	private static final String[] NO_FORGETS = {};

	private final String encoded;

	private final long startedNanos;

	private volatile long validUntilNanos;

	/**
	 * The kinds of limiter history forgotten while the lease was held, which its done
	 * deletes: written only inside the book's per-item operations, read once the hold has
	 * ended (the book's removal orders the two).
	 */
	volatile String[] forgets = NO_FORGETS;

	/**
	 * The item whose hold this lease ends while its done is under way, else {@code null}:
	 * set inside the book's per-item operation, cleared by the end of the done (one
	 * thread), so that the book finds the hold without a map of its own.
	 */
	volatile Object endingItem;

	/**
	 * Creates a lease.
	 * @param encoded the item's identity in the store, or {@code null} when unknown (a
	 * lease only to hand back, whose claim never heard back)
	 * @param startedNanos when it was leased, on the handle's clock
	 * @param validUntilNanos until when, on that clock, it surely holds: the time its
	 * claim was sent plus the lease
	 */
	protected Lease(String encoded, long startedNanos, long validUntilNanos) {
		this.encoded = encoded;
		this.startedNanos = startedNanos;
		this.validUntilNanos = validUntilNanos;
	}

	/**
	 * The item's identity in the store.
	 * @return the encoded item, or {@code null} when unknown
	 */
	public final String encoded() {
		return this.encoded;
	}

	/**
	 * When the item was leased.
	 * @return the time on the handle's clock
	 */
	public final long startedNanos() {
		return this.startedNanos;
	}

	/**
	 * Until when the lease surely holds, as of its claim or last renewal.
	 * @return the time on the handle's clock
	 */
	public final long validUntilNanos() {
		return this.validUntilNanos;
	}

	final void validUntilNanos(long validUntilNanos) {
		this.validUntilNanos = validUntilNanos;
	}

	/**
	 * The kinds of limiter history its done (or a forget of its own) must delete.
	 * @return the kinds, empty when none was deferred; never changed by the caller
	 */
	public final String[] forgets() {
		return this.forgets;
	}

}
