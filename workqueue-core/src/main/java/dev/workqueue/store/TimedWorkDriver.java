package dev.workqueue.store;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What a store does for the {@link TimedWork} of one handle: its renewals, its ticks
 * (expired leases queued again, the reporter role of the shared gauges), its hand-backs
 * and its end, each in the store's own calls. Part of the shared-store engine, used by
 * store modules; may change before 1.0.
 * <p>
 * Called on the thread that runs the timed work only, one call at a time; each call may
 * block on the store, and throws what the store throws ({@link #failure} names it).
 *
 * @param <L> the store's lease
 * @param <R> the store's causes of failure
 */
public interface TimedWorkDriver<L extends Lease, R> {

	/**
	 * The store's duties before the timed work of a run (such as a subscription that
	 * could not be made at the start).
	 * @return whether the work goes on in this run; {@code false} if the handle was shut
	 * down for good by it
	 */
	default boolean prepare() {
		return true;
	}

	/**
	 * Renews the given leases, in as few calls as the store allows.
	 * @param live the leases the handle holds, never empty
	 * @return which of them the store renewed (the others are lost)
	 */
	Predicate<L> renew(List<L> live);

	/**
	 * Queues again the items whose lease ran out, whoever held them, in one batch, and
	 * wakes the consumers if any were.
	 * @param nowNanos when the tick runs, on the clock
	 * @return how many were, and when the next tick is due
	 */
	Reaped reap(long nowNanos);

	/**
	 * Takes or keeps the role of reporting the shared gauges; called after each
	 * {@link #reap}.
	 * @return whether this handle has the role
	 */
	boolean report();

	/**
	 * Whether every run ticks, woken or due; otherwise a tick runs only when due.
	 * @return the store's answer, the same every time
	 */
	boolean ticksEveryRun();

	/**
	 * Hands back leases the handle could not release; those handed back are removed from
	 * the list, and what is left is tried again by a later run.
	 * @param orphans the leases to hand back, never empty
	 */
	void handBack(List<L> orphans);

	/**
	 * Hands back what the store leased to this handle under tokens it does not know
	 * (claims whose answer was lost), once asked by {@link TimedWork#reconcileSoon}.
	 * @param known the leases the handle knows, taken once no claim runs
	 * @return {@code false} if it could not look now (a later run asks again)
	 */
	default boolean reconcile(Supplier<List<L>> known) {
		return true;
	}

	/**
	 * The cause of a failure of the store.
	 * @param failure what a call of this driver threw
	 * @return its cause
	 * @throws RuntimeException {@code failure} itself if it is no failure of the store
	 */
	R failure(RuntimeException failure);

	/**
	 * What a cause says, as recovery messages name it.
	 * @param cause a cause from {@link #failure}
	 * @return its description
	 */
	String describe(R cause);

	/**
	 * What health checks say while this cause lasts, as
	 * {@link dev.workqueue.spi.SharedWorkQueue#failure()} does.
	 * @param cause a cause from {@link #failure}
	 * @return {@code "unreachable"}, or a reason of the store's own (such as a read-only
	 * database)
	 */
	default String healthFailure(R cause) {
		return "unreachable";
	}

	/**
	 * Whether, on this cause, the backoff may reach a third of the lease even when ticks
	 * are due sooner (a store that renews nothing while it lasts).
	 * @param cause a cause from {@link #failure}
	 * @return the store's answer
	 */
	default boolean renewsNothing(R cause) {
		return false;
	}

	/**
	 * Whether the store is gone for good under the handle, after a failure.
	 * @return {@code null} if not, or what to log (at WARNING) before the work ends
	 */
	default String gone() {
		return null;
	}

	/**
	 * Gives up the reporter role (and the store's subscriptions).
	 */
	void resign();

	/**
	 * Gives back what the work used (connections, links); called once, last.
	 */
	void release();

	/**
	 * What one tick queued again.
	 *
	 * @param count how many expired leases were queued again
	 * @param nextTickAtNanos when the next tick is due, on the clock
	 */
	record Reaped(long count, long nextTickAtNanos) {
	}

}
