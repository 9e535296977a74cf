package dev.workqueue.spi;

import java.time.Duration;

import dev.workqueue.PriorityQueue.Prioritized;

/**
 * One worker thread's handle for taking items from a queue: how a worker container runs
 * the get → work → done loop, pauses at once without interrupts, and (on a shared store)
 * marks an item done in the same round trip that takes the next.
 * <p>
 * A poller is used by one thread at a time; {@link #wakeup()} may be called from any
 * thread. Get one from a queue with {@link Pollers#of}.
 *
 * @param <T> the item type
 */
public interface Poller<T> {

	/**
	 * Takes the next item, waiting at most {@code timeout}, as
	 * {@link dev.workqueue.WorkQueue#poll(Duration)} does, unless a {@link #wakeup()} is
	 * pending or comes during the wait: then it returns {@code null} at once and the
	 * wake-up is used up.
	 * @param timeout how long to wait, not {@code null}; negative means zero
	 * @return the item with the priority it was handed out with (0 on a queue without
	 * priorities), or {@code null} on timeout, on a wake-up, or once the queue is shut
	 * down and empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	Prioritized<T> poll(Duration timeout) throws InterruptedException;

	/**
	 * Marks {@code done} done, as {@link dev.workqueue.WorkQueue#done}, then polls as
	 * {@link #poll}. The item is done whatever the poll then does (if marking it done
	 * fails, the exception is thrown and nothing is taken). A queue on a remote store
	 * does both in one round trip when an item is ready.
	 * @param done the item this worker finished, not {@code null}
	 * @param timeout how long to wait, not {@code null}; negative means zero
	 * @return the next item and its priority, or {@code null} as {@link #poll} returns it
	 * @throws InterruptedException if interrupted while waiting
	 */
	Prioritized<T> doneAndPoll(T done, Duration timeout) throws InterruptedException;

	/**
	 * Ends this poller's current poll, or its next one if none is under way: that poll
	 * returns {@code null} at once. Sticky (as Kafka's {@code Consumer.wakeup()}):
	 * several wake-ups before a poll end that one poll. Other pollers, and plain
	 * {@code get} and {@code poll} calls on the queue, are not affected.
	 */
	void wakeup();

	/**
	 * Returns the trace contexts of the item that this poller's last {@link #poll} or
	 * {@link #doneAndPoll} returned, as its queue's {@link TraceContextSource} captured
	 * them at its adds. Read by the poller's thread, after the poll and before the next.
	 * @return the contexts, or {@code null} when the item has none, when the last poll
	 * returned {@code null}, or when the queue stores none (the default)
	 */
	default ItemTrace trace() {
		return null;
	}

}
