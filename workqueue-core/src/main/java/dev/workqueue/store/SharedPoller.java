package dev.workqueue.store;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spi.Poller;
import dev.workqueue.store.ReadySignal.Wakeup;
import dev.workqueue.time.Nanos;

/**
 * One worker thread's poller of a shared store's handle, the same for every store: its
 * polls take items as the handle's {@code poll} does, with their priority; its
 * {@code doneAndPoll} ends the done item's hold at once and its lease in the store with
 * the next look (one round trip when an item is ready, or alone when the poll hands out
 * an item taken ahead, waits first, or ends before it looks); its {@link #wakeup()} ends
 * its own wait only, without an interrupt; its {@link #trace()} gives the trace contexts
 * taken with the item.
 * <p>
 * Part of the shared-store engine, used by store modules; may change before 1.0. Used by
 * one thread, but for {@link #wakeup()}, which any thread may call.
 *
 * @param <T> the item type
 * @param <L> the store's lease of an item
 */
public final class SharedPoller<T, L> implements Poller<T> {

	/**
	 * How a handle takes an item for a poller.
	 *
	 * @param <T> the item type
	 * @param <L> the store's lease of an item
	 */
	@FunctionalInterface
	public interface Taker<T, L> {

		/**
		 * Takes the next item, waiting for one at most {@code timeoutNanos} when
		 * {@code bounded} (always, for a poller), and only until {@code wakeup} comes;
		 * first ends {@code owedDone}, if given, with the first look when it can.
		 * @param bounded whether the wait is bounded
		 * @param timeoutNanos the bound, not negative
		 * @param wakeup the poller's wake-up
		 * @param owedDone a lease whose end rides with the look, or {@code null}
		 * @param traces where the trace contexts of the item taken go
		 * @return the item with its priority, or {@code null} on timeout, wake-up, or
		 * once shut down
		 * @throws InterruptedException if interrupted while waiting
		 */
		Prioritized<T> take(boolean bounded, long timeoutNanos, Wakeup wakeup, L owedDone, TraceSlot traces)
				throws InterruptedException;

	}

	private final Taker<T, L> taker;

	private final Function<T, L> finishForNextTake;

	private final ReadySignal signal;

	private final Wakeup wakeup = new Wakeup();

	private final TraceSlot traces = new TraceSlot();

	/**
	 * Makes a poller.
	 * @param taker how the handle takes items
	 * @param finishForNextTake ends the hold of a done item at once and returns its lease
	 * to end with the next look, or {@code null} if the item was not held
	 * @param signal the handle's ready signal
	 */
	public SharedPoller(Taker<T, L> taker, Function<T, L> finishForNextTake, ReadySignal signal) {
		this.taker = Objects.requireNonNull(taker, "taker");
		this.finishForNextTake = Objects.requireNonNull(finishForNextTake, "finishForNextTake");
		this.signal = Objects.requireNonNull(signal, "signal");
	}

	@Override
	public Prioritized<T> poll(Duration timeout) throws InterruptedException {
		return this.taker.take(true, timeoutNanos(timeout), this.wakeup, null, this.traces);
	}

	@Override
	public Prioritized<T> doneAndPoll(T done, Duration timeout) throws InterruptedException {
		long timeoutNanos = timeoutNanos(timeout);
		return this.taker.take(true, timeoutNanos, this.wakeup, this.finishForNextTake.apply(done), this.traces);
	}

	@Override
	public ItemTrace trace() {
		return this.traces.trace();
	}

	@Override
	public void wakeup() {
		this.signal.wake(this.wakeup);
	}

	private static long timeoutNanos(Duration timeout) {
		return Math.max(0, Nanos.of(Objects.requireNonNull(timeout, "timeout")));
	}

}
