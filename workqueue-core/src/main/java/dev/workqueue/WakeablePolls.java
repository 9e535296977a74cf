package dev.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A queue whose waiting polls can be ended without an interrupt: how a worker container
 * pauses, shrinks or stops at once while its threads wait in {@code poll}. A worker reads
 * {@link #pollEpoch()} before it decides to poll, then polls with
 * {@link #pollUnlessWoken}: a {@link #wakePolls()} in between, or during the wait, makes
 * that poll return {@code null} at once, so a control change made before the worker was
 * waiting is never missed. Queues built by {@link WorkQueues} and by the Redis backend
 * implement it; find it behind a queue with {@link #of}.
 *
 * @param <T> the item type
 */
public interface WakeablePolls<T> {

	/**
	 * Returns the queue's wake-up epoch: it changes with each {@link #wakePolls()}.
	 * @return the epoch now
	 */
	long pollEpoch();

	/**
	 * Polls as {@link WorkQueue#poll(Duration)}, unless {@link #wakePolls()} was called
	 * since {@code epoch} was read: then returns {@code null} at once, or as soon as it
	 * is called during the wait.
	 * @param timeout how long to wait, not {@code null}
	 * @param epoch what {@link #pollEpoch()} returned before the caller decided to poll
	 * @return the item, or {@code null} on timeout, wake-up, or once shut down and empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	T pollUnlessWoken(Duration timeout, long epoch) throws InterruptedException;

	/**
	 * As {@link #pollUnlessWoken}, with the priority the item was handed out with: its
	 * priority on a {@link PriorityQueue}, 0 on other queues.
	 * @param timeout how long to wait, not {@code null}
	 * @param epoch what {@link #pollEpoch()} returned before the caller decided to poll
	 * @return the item and its priority, or {@code null} on timeout, wake-up, or once
	 * shut down and empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	default PriorityQueue.Prioritized<T> pollWithPriorityUnlessWoken(Duration timeout, long epoch)
			throws InterruptedException {
		T item = pollUnlessWoken(timeout, epoch);
		return (item != null) ? new PriorityQueue.Prioritized<>(item, 0) : null;
	}

	/**
	 * Marks an item done, as {@link WorkQueue#done}.
	 * @param item the item
	 */
	void done(T item);

	/**
	 * A worker's step from one item to the next: {@link #done} of {@code done}, then
	 * {@link #pollWithPriorityUnlessWoken}. The item is done whatever the poll then does
	 * (or, if marking it done fails, left as a failed {@code done} leaves it). A queue on
	 * a remote store does both in one round trip when an item is ready.
	 * @param done the item the worker finished
	 * @param timeout how long to wait, not {@code null}
	 * @param epoch what {@link #pollEpoch()} returned before the caller decided to poll
	 * @return the next item and its priority, or {@code null} on timeout, wake-up, or
	 * once shut down and empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	default PriorityQueue.Prioritized<T> doneAndPoll(T done, Duration timeout, long epoch) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		done(done);
		return pollWithPriorityUnlessWoken(timeout, epoch);
	}

	/**
	 * Ends every poll made with an earlier epoch, waiting or about to wait: each returns
	 * {@code null}. Plain {@code get} and {@code poll} calls are not affected.
	 */
	void wakePolls();

	/**
	 * Returns the wakeable polls of {@code queue}, if it has them.
	 * @param queue any queue
	 * @param <T> the item type
	 * @return its wakeable polls, or empty for a queue without them
	 */
	@SuppressWarnings("unchecked")
	static <T> Optional<WakeablePolls<T>> of(WorkQueue<T> queue) {
		return (queue instanceof WakeablePolls<?> wakeable && wakeable.wakeable())
				? Optional.of((WakeablePolls<T>) wakeable) : Optional.empty();
	}

	/**
	 * Returns the wakeable polls of {@code queue}, or, for a queue without them, plain
	 * polls of it that no wake-up ends.
	 * @param queue any queue
	 * @param <T> the item type
	 * @return polls of the queue
	 */
	static <T> WakeablePolls<T> forPolling(WorkQueue<T> queue) {
		Objects.requireNonNull(queue, "queue");
		return of(queue).orElseGet(() -> (PollForwarding<T>) () -> queue);
	}

	/**
	 * Whether this queue's polls can really be woken: a queue that only passes them on
	 * can if the queue it wraps can.
	 * @return {@code true} by default
	 */
	default boolean wakeable() {
		return true;
	}

}
