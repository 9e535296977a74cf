package dev.workqueue.delay;

import java.time.Duration;

/**
 * A value in a {@link DelayQueue}: the user's {@link DelayQueue.Entry} handle and the
 * node of the queue's {@link EntryHeap} at once, so a value costs one 32-byte object
 * (compressed oops) plus its heap slot, which also holds its due time.
 * <p>
 * The mutable fields are guarded by the queue's lock; {@link #heapIndex} is -1 once the
 * value has been taken or cancelled, which is what makes a second take, cancel or
 * reschedule impossible.
 *
 * @param <T> the value type
 */
final class HeapEntry<T> implements DelayQueue.Entry<T> {

	private final DelayQueue<T> queue;

	private final T value;

	/** Push (or reschedule) order, which breaks ties between equal due times. */
	long sequence;

	/** Position in the heap, or -1 when not queued. */
	int heapIndex = -1;

	HeapEntry(DelayQueue<T> queue, T value, long sequence) {
		this.queue = queue;
		this.value = value;
		this.sequence = sequence;
	}

	@Override
	public T value() {
		return this.value;
	}

	@Override
	public boolean cancel() {
		return this.queue.cancel(this);
	}

	@Override
	public boolean reschedule(Duration delay) {
		return this.queue.reschedule(this, delay);
	}

	@Override
	public String toString() {
		return "DelayQueue.Entry[" + this.value + "]";
	}

}
