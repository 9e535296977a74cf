package dev.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link WakeablePolls} of a queue that passes its polls on to the queue it wraps (the
 * delaying and rate-limiting queues): wakeable exactly when that queue is.
 *
 * @param <T> the item type
 */
interface PollForwarding<T> extends WakeablePolls<T> {

	/**
	 * Returns the queue the polls go to.
	 * @return the wrapped queue
	 */
	WorkQueue<T> pollTarget();

	@Override
	default long pollEpoch() {
		return target().map(WakeablePolls::pollEpoch).orElse(0L);
	}

	@Override
	default T pollUnlessWoken(Duration timeout, long epoch) throws InterruptedException {
		Optional<WakeablePolls<T>> target = target();
		return target.isPresent() ? target.get().pollUnlessWoken(timeout, epoch) : pollTarget().poll(timeout);
	}

	@Override
	default PriorityQueue.Prioritized<T> pollWithPriorityUnlessWoken(Duration timeout, long epoch)
			throws InterruptedException {
		Optional<WakeablePolls<T>> target = target();
		if (target.isPresent()) {
			return target.get().pollWithPriorityUnlessWoken(timeout, epoch);
		}
		T item = pollTarget().poll(timeout);
		return (item != null) ? new PriorityQueue.Prioritized<>(item, 0) : null;
	}

	@Override
	default void done(T item) {
		pollTarget().done(item);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Passed on whole: a queue that passes its polls on passes {@code done} on too.
	 */
	@Override
	default PriorityQueue.Prioritized<T> doneAndPoll(T done, Duration timeout, long epoch) throws InterruptedException {
		Optional<WakeablePolls<T>> target = target();
		if (target.isPresent()) {
			return target.get().doneAndPoll(done, timeout, epoch);
		}
		Objects.requireNonNull(timeout, "timeout");
		pollTarget().done(done);
		T item = pollTarget().poll(timeout);
		return (item != null) ? new PriorityQueue.Prioritized<>(item, 0) : null;
	}

	@Override
	default void wakePolls() {
		target().ifPresent(WakeablePolls::wakePolls);
	}

	@Override
	default boolean wakeable() {
		return target().isPresent();
	}

	private Optional<WakeablePolls<T>> target() {
		return WakeablePolls.of(pollTarget());
	}

}
