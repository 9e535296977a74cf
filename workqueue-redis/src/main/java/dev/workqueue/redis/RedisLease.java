package dev.workqueue.redis;

import dev.workqueue.store.Lease;

/**
 * A lease in Redis: the engine's lease with the token the server holds for it. Immutable
 * but for what the engine's {@link dev.workqueue.store.LeaseBook} keeps.
 */
final class RedisLease extends Lease {

	private final String token;

	/**
	 * Creates a lease.
	 * @param encoded the item's identity in Redis, or {@code null} when unknown (a lease
	 * only to hand back, whose get never heard back)
	 * @param token the token the server holds for it
	 * @param startedNanos when it was leased, on the clock
	 * @param validUntilNanos until when it surely holds, on the clock
	 */
	RedisLease(String encoded, String token, long startedNanos, long validUntilNanos) {
		super(encoded, startedNanos, validUntilNanos);
		this.token = token;
	}

	/** A lease to hand back whose item may be unknown ({@code null}). */
	static RedisLease orphan(String encoded, String token) {
		return new RedisLease(encoded, token, 0, 0);
	}

	String token() {
		return this.token;
	}

}
