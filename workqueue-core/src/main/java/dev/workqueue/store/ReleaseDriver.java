package dev.workqueue.store;

import java.util.List;

/**
 * The operations a shared store runs to end leases, for {@link LeaseReleases}: each one
 * statement or script of the store (the dones of several workers grouped in one call),
 * fenced by the lease's token, so that a lease the handle lost changes nothing. Part of
 * the shared-store engine, implemented by store modules; may change before 1.0.
 * <p>
 * Each method blocks until the store answered, and throws the store's unchecked exception
 * when it cannot tell that the operation ran; it may be called from any thread at once.
 *
 * @param <L> the store's lease type
 */
public interface ReleaseDriver<L extends Lease> {

	/**
	 * Ends each lease with a done, all in one store call (one statement and commit, one
	 * script): each item is deleted, or queued again if it was added while it was held;
	 * the history deferred to each ({@link Lease#forgets()}) is deleted with it. A stale
	 * lease (lost by the handle) changes nothing, and the others end all the same. Throws
	 * the store's exception when it cannot tell that the call ran: then every lease is
	 * handled as a single failed done's (no longer renewed, it runs out and its item
	 * comes back).
	 * @param leases the leases, at least one
	 */
	void done(List<L> leases);

	/**
	 * Hands a lease back unprocessed, ready after a delay (or at once).
	 * @param lease the lease
	 * @param delayNanos the delay, {@code 0} for at once
	 */
	void handBack(L lease, long delayNanos);

	/**
	 * Hands leases back unprocessed, ready at once, each in its place in line as far as
	 * the store keeps one. A store that needs one call per lease tries every lease before
	 * it throws: the engine then remembers them all, and hands them back again later
	 * (those already back are fenced off). A store whose records another transaction may
	 * lock hands the others back rather than wait for one, and returns the leases whose
	 * record it left: the engine remembers those too, and its timed work hands them back
	 * again at a later run, within a tick (not renewed meanwhile: once a lease runs out,
	 * any handle's reap may queue its item again instead, when the lock is gone).
	 * @param leases the leases, at least one
	 * @return the leases left held because another transaction locks their record, empty
	 * for none
	 */
	List<L> handBackInPlace(List<L> leases);

	/**
	 * Deletes the limiter history deferred to a lease ({@link Lease#forgets()}, not
	 * empty) whose hold ends without a done. A store that never defers a forget
	 * ({@link LeaseBook#deferForget}) is never asked.
	 * @param lease the lease
	 */
	default void forget(L lease) {
		throw new UnsupportedOperationException("This store defers no forget");
	}

}
