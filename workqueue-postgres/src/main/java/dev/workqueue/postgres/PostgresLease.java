package dev.workqueue.postgres;

import dev.workqueue.store.Lease;

/**
 * A lease in the queue's table: the engine's lease with the token its row holds.
 * Immutable but for what the engine's {@link dev.workqueue.store.LeaseBook} keeps.
 */
final class PostgresLease extends Lease {

	/** The token the row holds. */
	final long token;

	/**
	 * Creates a lease.
	 * @param encoded the item's text
	 * @param token the token the row holds
	 * @param startedNanos when it was claimed, on the clock
	 * @param validUntilNanos until when it surely holds, on the clock
	 */
	PostgresLease(String encoded, long token, long startedNanos, long validUntilNanos) {
		super(encoded, startedNanos, validUntilNanos);
		this.token = token;
	}

}
