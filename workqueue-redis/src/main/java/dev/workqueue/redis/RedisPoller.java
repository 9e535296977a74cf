package dev.workqueue.redis;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.redis.ReadySignal.Wakeup;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.time.Nanos;

/**
 * One worker thread's poller of a queue handle: its polls take items as the handle's
 * {@code poll} does, with their priority from the get script's reply; its
 * {@code doneAndPoll} sends the done with the next get, one script and one round trip
 * when an item is ready (or alone, before the wait, when none is known to be); its
 * {@link #wakeup()} ends its own wait only, without an interrupt.
 *
 * @param <T> the item type
 */
final class RedisPoller<T> implements Poller<T> {

	private final ItemTaker<T> taker;

	private final LeaseReleases<T, RedisLease> releases;

	private final ReadySignal signal;

	private final Wakeup wakeup = new Wakeup();

	private final ItemTaker.TraceSlot traces = new ItemTaker.TraceSlot();

	RedisPoller(ItemTaker<T> taker, LeaseReleases<T, RedisLease> releases, ReadySignal signal) {
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
	 * The hold ends here at once; the lease ends in Redis in the script of the next get,
	 * or alone when the poll waits first (no item known to be ready) or ends before it
	 * looks (a wake-up, a shutdown): see {@link ItemTaker#take}.
	 */
	@Override
	public Prioritized<T> doneAndPoll(T done, Duration timeout) throws InterruptedException {
		long timeoutNanos = timeoutNanos(timeout);
		RedisLease lease = this.releases.finishForNextTake(done);
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
