package dev.workqueue;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A keyed work queue with Kubernetes client-go semantics: an item waiting to be processed
 * is held once however often it is added, and an item is never handed to two workers at
 * once.
 * <p>
 * Items are identity keys (they implement {@code equals}/{@code hashCode}); {@code null}
 * is rejected with {@link NullPointerException}. The rules:
 * <ul>
 * <li>FIFO among distinct items; a second {@link #add} of a queued item is a no-op.</li>
 * <li>An item being processed (returned by {@link #get}/{@link #poll}, not yet
 * {@link #done}) that is added again is marked dirty and held back; {@code done} puts it
 * back at the tail.</li>
 * <li>After {@link #shutDown()}, adds are ignored and {@code get} returns what is already
 * queued, then {@code null} at once.</li>
 * </ul>
 * A worker loops {@code get} → work → {@code done}, always calling {@code done}, for
 * example in a {@code finally} block. Implementations are thread-safe.
 * <p>
 * <b>Keys.</b> An item's {@code equals} and {@code hashCode} must not change while it is
 * queued, waiting or being processed: the queue finds the item by them. If they change,
 * {@code add} no longer finds the queued item (so it is queued twice), {@code done} finds
 * nothing (so the item stays "processing" for ever, and {@link #shutDownWithDrain()}
 * waits for it until another {@code shutDown}), and a delayed item that can no longer be
 * queued is logged and dropped. Strings, boxed numbers and records of such values are the
 * safe choice, as client-go's string keys ({@code namespace/name}) are: use the key of
 * the thing to reconcile, and read its current state when processing, rather than
 * queueing a mutable object. An exception thrown by an item's {@code equals} or
 * {@code hashCode} reaches the caller of {@code add} or {@code done}; on a queue's own
 * thread it costs that item only.
 *
 * @param <T> the item type
 * @see WorkQueues#builder()
 */
public interface WorkQueue<T> extends AutoCloseable {

	/**
	 * Adds an item unless it is already queued; an item being processed is marked to be
	 * queued again on {@link #done}. Ignored after shutdown.
	 * @param item the item, not {@code null}
	 */
	void add(T item);

	/**
	 * Adds each item as {@link #add} does, in order: a burst in one call. A queue on a
	 * remote store sends the burst in a few round trips instead of one per item.
	 * @param items the items, none {@code null}
	 * @throws NullPointerException if {@code items} or an item is {@code null}; the
	 * queues of this project then add none of them
	 */
	default void addAll(Collection<? extends T> items) {
		for (T item : List.copyOf(items)) {
			add(item);
		}
	}

	/**
	 * Takes the next item, blocking until one is ready. The caller must call
	 * {@link #done} with it when finished.
	 * @return the item, or {@code null} once the queue is shut down and empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	T get() throws InterruptedException;

	/**
	 * Takes the next item, waiting at most {@code timeout} (measured on the queue's
	 * clock; a negative timeout means zero).
	 * @param timeout how long to wait, not {@code null}
	 * @return the item, or {@code null} on timeout or once the queue is shut down and
	 * empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	T poll(Duration timeout) throws InterruptedException;

	/**
	 * Marks the end of processing of an item returned by {@link #get} or {@link #poll}.
	 * If it was added again meanwhile, it is queued again at the tail. A no-op for an
	 * item that is not being processed. Legal after shutdown.
	 * @param item the item, not {@code null}
	 */
	void done(T item);

	/**
	 * Returns the number of items ready to be handed out: not being processed, not
	 * waiting for a delay.
	 * @return the number of ready items
	 */
	int size();

	/**
	 * Starts shutdown: new adds are ignored and waiting (delayed) items are dropped;
	 * {@code get} keeps returning what is queued, then {@code null} without blocking.
	 * Idempotent.
	 */
	void shutDown();

	/**
	 * {@link #shutDown()}, then blocks until no item is being processed. Returns early
	 * when interrupted, keeping the interrupt status.
	 */
	void shutDownWithDrain();

	/**
	 * Returns whether {@link #shutDown()} has been called.
	 * @return whether the queue is shutting down
	 */
	boolean isShuttingDown();

	/**
	 * Returns the queue's name, used in thread names and metrics.
	 * @return the name, {@code ""} when unnamed
	 */
	String name();

	/**
	 * Returns a reading of the queue's gauges, taken when called. Queues built by
	 * {@link WorkQueues} take it under their lock, so the figures are consistent with
	 * each other. The default, for other implementations, reports only {@link #size()}.
	 * @return the current figures
	 */
	default WorkQueueStats stats() {
		return WorkQueueStats.builder().depth(size()).build();
	}

	/**
	 * Returns this queue as {@code type}, if it has that capability: what integrations
	 * use beyond the public interfaces (see {@code dev.workqueue.spi}), in the spirit of
	 * JDBC's {@code unwrap}. A queue that wraps another answers for itself, then passes
	 * the question on to the queue it wraps.
	 * @param type the capability, not {@code null}
	 * @param <C> the capability type
	 * @return this queue, or one it wraps, as {@code type}; empty if none is one
	 */
	default <C> Optional<C> capability(Class<C> type) {
		Objects.requireNonNull(type, "type");
		return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
	}

	/**
	 * Same as {@link #shutDown()}.
	 */
	@Override
	default void close() {
		shutDown();
	}

}
