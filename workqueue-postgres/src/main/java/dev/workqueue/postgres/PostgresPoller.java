package dev.workqueue.postgres;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.postgres.ReadySignal.Wakeup;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.spi.Poller;
import dev.workqueue.time.Nanos;

/**
 * One worker thread's poller of a handle: its polls take items as the handle's
 * {@code poll} does; its {@code doneAndPoll} ends the done item's lease in the statement
 * that claims the next (one round trip when items are ready); its {@link #wakeup()} ends
 * its own wait only; its {@link #trace()} gives the trace contexts that the claim took
 * with the item.
 *
 * @param <T> the item type
 */
final class PostgresPoller<T> implements Poller<T> {

	private final ItemTaker<T> taker;

	private final LeaseReleases<T, PostgresLease> releases;

	private final ReadySignal signal;

	private final Wakeup wakeup = new Wakeup();

	private final ItemTaker.TraceSlot traces = new ItemTaker.TraceSlot();

	PostgresPoller(ItemTaker<T> taker, LeaseReleases<T, PostgresLease> releases, ReadySignal signal) {
		this.taker = taker;
		this.releases = releases;
		this.signal = signal;
	}

	@Override
	public Prioritized<T> poll(Duration timeout) throws InterruptedException {
		return this.taker.take(true, timeoutNanos(timeout), this.wakeup, null, this.traces);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The hold ends here at once (the lease stays in the book, ending, until its
	 * statement returned: see {@link dev.workqueue.store.LeaseBook}); the lease ends in
	 * the table in the statement of the next claim, or alone when the poll hands out an
	 * item claimed ahead or ends before it looks (see {@link ItemTaker#take}).
	 */
	@Override
	public Prioritized<T> doneAndPoll(T done, Duration timeout) throws InterruptedException {
		long timeoutNanos = timeoutNanos(timeout);
		PostgresLease lease = this.releases.finishForNextTake(done);
		return this.taker.take(true, timeoutNanos, this.wakeup, lease, this.traces);
	}

	@Override
	public ItemTrace trace() {
		return this.traces.trace;
	}

	@Override
	public void wakeup() {
		this.signal.wake(this.wakeup);
	}

	private static long timeoutNanos(Duration timeout) {
		return Math.max(0, Nanos.of(Objects.requireNonNull(timeout, "timeout")));
	}

}
