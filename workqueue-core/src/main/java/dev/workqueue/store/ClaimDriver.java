package dev.workqueue.store;

import java.util.List;

import dev.workqueue.spi.ItemTrace;

/**
 * How a shared store claims items for the {@link ItemTaker}: one call that leases up to a
 * count of ready items under new leases, ending the owed {@code done}s of the handle's
 * workers first when given. Part of the shared-store engine, used by store modules; may
 * change before 1.0.
 * <p>
 * A claim whose answer may have been lost (a timeout, an interrupt, a dropped link) is
 * the driver's to settle: it throws, and makes sure whatever the call may still lease is
 * handed back (Redis hands back a late answer's leases and remembers the tokens of one
 * that never comes; PostgreSQL has its keeper look for rows its handle holds unbooked).
 * <p>
 * Thread-safe: the {@link ItemTaker} sends one claim of a handle at a time (its
 * consumers' looks are grouped), but drivers must not rely on it; each call runs on the
 * thread of the group's leader, carrying the owed dones of the other askers too, and the
 * answer is taken in hand on that same thread, blocking for one store call at most.
 *
 * @param <L> the store's lease type
 */
public interface ClaimDriver<L extends Lease> {

	/**
	 * The most items one claim leases.
	 * @return the limit, at least 1
	 */
	int claimLimit();

	/**
	 * Leases up to {@code count} ready items in one store call (one statement and commit,
	 * one script), ending the leases of {@code owedDones} first, each with a done fenced
	 * by its token (a stale one changes nothing). The answer is the caller's until it
	 * calls {@link Claim#taken}.
	 * @param count how many to lease, at least 1
	 * @param owedDones the leases whose dones ride with this claim, ended first; never
	 * {@code null}, possibly empty (then it is a plain claim)
	 * @param sentNanos the time the claim is sent, on the handle's clock: its leases run
	 * out a lease after it
	 * @return the items leased, in hand-out order
	 * @throws InterruptedException if interrupted while it waits for the answer (the
	 * driver settles what the claim may still lease)
	 * @throws RuntimeException the store's failure (settled the same way; every owed done
	 * may or may not have ended)
	 */
	Claim<L> claim(int count, List<L> owedDones, long sentNanos) throws InterruptedException;

	/**
	 * Who claims, for log messages: the store and queue.
	 * @return a short description
	 */
	String who();

	/**
	 * How many undecodable items this handle moved to the dead letters.
	 * @return the count
	 */
	long deadLettered();

	/**
	 * The answer of one claim: the items it leased, read by index from 0. Used by one
	 * consumer thread only.
	 *
	 * @param <L> the store's lease type
	 */
	interface Claim<L extends Lease> {

		/**
		 * How many items the claim leased.
		 * @return the count
		 */
		int size();

		/**
		 * An item's identity in the store.
		 * @param n the index
		 * @return the encoded item
		 */
		String encoded(int n);

		/**
		 * The priority an item is handed out with.
		 * @param n the index
		 * @return the priority (0 on a plain queue)
		 */
		int priority(int n);

		/**
		 * How long an item had been ready when leased.
		 * @param n the index
		 * @return the time in nanoseconds
		 */
		long queuedNanos(int n);

		/**
		 * An item's trace contexts.
		 * @param n the index
		 * @return the contexts, or {@code null} for none
		 */
		ItemTrace trace(int n);

		/**
		 * How long until the earliest waiting item is due, if the store said.
		 * @return the time in nanoseconds, negative if none or not told
		 */
		long dueInNanos();

		/**
		 * An item's lease, to take in hand.
		 * @param n the index
		 * @param nowNanos the time it is taken in hand, on the handle's clock
		 * @return a new lease
		 */
		L lease(int n, long nowNanos);

		/**
		 * Makes sure an item's lease still holds, taken in hand a third of the lease or
		 * more after the claim was sent (a slow answer or decode): the lease may have run
		 * out and the item gone to another handle. Renews it (or every lease of the claim
		 * from {@code n} on, in one call), and settles a failure itself.
		 * @param n the index
		 * @param elapsedNanos how long after the claim was sent
		 * @return whether the lease is renewed; if not the item is not handed out
		 */
		boolean confirm(int n, long elapsedNanos);

		/**
		 * Moves an item the handle cannot take to the dead letters, or, if that fails,
		 * makes sure it is handed back: its codec could not decode it, or the decoded
		 * item's {@code hashCode} or {@code equals} threw.
		 * @param n the index
		 * @param cause why: what the codec threw, an exception or an error of the item's
		 * own (a stack overflow, a class it names missing here), or what the item's
		 * {@code hashCode} or {@code equals} threw, wrapped to say so
		 */
		void deadLetter(int n, Throwable cause);

		/**
		 * Every item of the claim is in hand, dead-lettered or handed back: the driver
		 * may release what it kept for the claim. Called exactly once per claim returned.
		 */
		void taken();

	}

}
