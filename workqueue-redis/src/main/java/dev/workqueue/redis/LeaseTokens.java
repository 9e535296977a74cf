package dev.workqueue.redis;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The tokens of one handle's leases: its random id and a count, unique for ever, so that
 * neither a restart of Redis nor a failover that loses writes can repeat one. A token
 * never holds an {@code '@'}: the scripts keep a lease as its token, {@code ".@"} and the
 * time it was granted, and find the token's end by that mark ({@code lease_token} in
 * {@code includes/lease_value.lua}). Thread-safe: the count is atomic.
 */
final class LeaseTokens {

	private final String id;

	private final AtomicLong count = new AtomicLong();

	/**
	 * Creates the tokens of a handle.
	 * @param id the handle's id
	 * @throws IllegalArgumentException if {@code id} holds an {@code '@'}, which would
	 * make the scripts read a lease's token short
	 */
	LeaseTokens(String id) {
		if (id.indexOf('@') >= 0) {
			throw new IllegalArgumentException("id must not contain '@', was '" + id + "'");
		}
		this.id = id;
	}

	/**
	 * The handle's id, which starts each of its tokens (up to the {@code ':'}): how the
	 * given-up records and an operator's look name the holder.
	 * @return the id
	 */
	String holder() {
		return this.id;
	}

	/** A token no lease ever had. */
	String next() {
		return this.id + ":" + Long.toString(this.count.incrementAndGet(), 36);
	}

	/**
	 * The token of the {@code n}-th item a get leased with {@code token}, as the scripts
	 * make it ({@code token_of} in {@code includes/token_of.lua}).
	 * @param token the get's token
	 * @param n the item's place in the reply, from 1
	 * @return its token
	 */
	static String nth(String token, int n) {
		return (n == 1) ? token : token + "." + n;
	}

}
