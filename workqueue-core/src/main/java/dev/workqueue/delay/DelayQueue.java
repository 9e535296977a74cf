package dev.workqueue.delay;

import java.time.Duration;
import java.util.Objects;
import java.util.Spliterator;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * A delay queue: values pushed with a delay come out of {@link #take()} and
 * {@link #poll(Duration)} once due, earliest due first, and equal due times in push
 * order. Each {@link #push} returns an {@link Entry} that can cancel the value or
 * reschedule it from now; a rescheduled value ties as if pushed at that moment.
 * <p>
 * <b>Contract.</b> A value is due when the queue's {@link Clock} reads at or past its due
 * time; a delay {@code <= 0} is due at once. {@code take} and {@code poll} read the clock
 * on every call, so a value due after a {@code FakeClock} step comes out of the next
 * {@code poll(Duration.ZERO)}; a {@code poll} timeout is measured on the same clock, and
 * a negative timeout means zero. {@link #size()} counts every pending value, due or not.
 * Each value is handed out at most once, and never after a successful
 * {@link Entry#cancel()}. {@link #stream()} is a blocking view for consumers.
 * <p>
 * <b>After {@link #close()}:</b> {@code push} throws {@link IllegalStateException};
 * {@code take} and {@code poll} never block: they return a value that is due, else
 * {@code null} at once, and every thread blocked in them wakes up to do the same, so
 * streams end once nothing due is left. Values not yet due stay pending: {@code size()}
 * counts them, their entries can still cancel or reschedule them, and they come out of
 * {@code take}/{@code poll} once due.
 * <p>
 * <b>Thread-safety and design.</b> Thread-safe for any number of producers and consumers.
 * One {@link ReentrantLock} guards the heap, the sequence counter, {@code leader} and
 * {@code closed}. Consumers wait on the clock themselves, in the leader/follower style of
 * {@link java.util.concurrent.DelayQueue}: only the {@code leader} waits until the head's
 * due time; the others wait without a deadline (or until their own {@code poll} deadline)
 * and are signalled when the leader leaves with a value, when a push or reschedule puts a
 * new value at the head, or on close. So the queue has no thread of its own, as the
 * in-memory delaying queue has none: the consumers are the ones waiting for due times,
 * and handing values through an owner thread would add a thread per queue, a second
 * wake-up and a context switch per value, for the same single timed wait.
 * <p>
 * <b>How it works and cost.</b> A 4-ary min-heap ordered by due time, then a sequence
 * number taken at each push and reschedule, as the indexed heaps of Go delay queues. Each
 * entry stores its heap index, so {@code cancel} and {@code reschedule} are O(log n)
 * without a search, as are {@code push} and a take; due times sit in an array beside the
 * entries, so a take over a large heap touches about half the cache lines of the JDK's
 * binary heap of {@code Delayed} objects. Memory per pending value, with compressed oops:
 * one 32-byte entry (the handle is the heap node) plus 12 to 48 bytes of heap arrays,
 * about 48 bytes.
 * <p>
 * <b>Limits.</b> Values must not be {@code null} ({@code null} is the end signal of
 * {@code take}/{@code poll} after close); they need not implement
 * {@code equals}/{@code hashCode}, and the same value may be pushed many times. The
 * sequence number is a {@code long} and never wraps in practice.
 *
 * @param <T> the value type
 */
public final class DelayQueue<T> implements AutoCloseable {

	private final Clock clock;

	private final ReentrantLock lock = new ReentrantLock();

	/** Signalled on a new head, when a leader leaves, and on close. */
	private final Condition available = this.lock.newCondition();

	private final EntryHeap<T> heap = new EntryHeap<>();

	private long nextSequence;

	/** The consumer waiting for the head's due time, if any. */
	private Thread leader;

	private boolean closed;

	/**
	 * Creates an empty queue on the system clock.
	 */
	public DelayQueue() {
		this(Clock.system());
	}

	/**
	 * Creates an empty queue on {@code clock}.
	 * @param clock the clock that delays and timeouts are measured on
	 */
	public DelayQueue(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "clock");
	}

	/**
	 * Adds {@code value}, due {@code delay} from now. Never blocks (beyond the lock).
	 * @param value the value
	 * @param delay how long from now; {@code <= 0} means due at once
	 * @return the handle that cancels or reschedules this value
	 * @throws IllegalStateException if the queue is closed
	 */
	public Entry<T> push(T value, Duration delay) {
		Objects.requireNonNull(value, "value");
		long dueNanos = dueNanos(delay);
		this.lock.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("DelayQueue is closed");
			}
			HeapEntry<T> entry = new HeapEntry<>(this, value, this.nextSequence++);
			this.heap.add(entry, dueNanos);
			signalIfHead(entry);
			return entry;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Removes and returns the first value, waiting until it is due. Wakes early when an
	 * earlier value is pushed.
	 * @return the value, or {@code null} once the queue is closed and no value is due
	 * @throws InterruptedException if interrupted while waiting
	 */
	public T take() throws InterruptedException {
		return pollUntil(Long.MAX_VALUE);
	}

	/**
	 * Removes and returns the first value if it is due within {@code timeout}, waiting
	 * for it at most that long on the queue's clock.
	 * @param timeout how long to wait; negative means zero
	 * @return the value, or {@code null} on timeout, or at once if the queue is closed
	 * and no value is due
	 * @throws InterruptedException if interrupted while waiting
	 */
	public T poll(Duration timeout) throws InterruptedException {
		Objects.requireNonNull(timeout, "timeout");
		return pollUntil(Nanos.add(this.clock.nanoTime(), Math.max(0, Nanos.of(timeout))));
	}

	/**
	 * Returns the number of pending values, due or not.
	 * @return the number of values not yet taken or cancelled
	 */
	public int size() {
		this.lock.lock();
		try {
			return this.heap.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns a sequential stream of the values as they come due: each element is taken
	 * with {@link #take()}, so the stream blocks between values and ends once the queue
	 * is {@link #close() closed} and no value is due. Several streams (and direct callers
	 * of {@code take}) share the values: each value goes to one of them. If the consuming
	 * thread is interrupted, the stream ends and the interrupt status is kept. Closing
	 * the stream does not close the queue.
	 * @return a stream of the values in due order
	 */
	public Stream<T> stream() {
		return StreamSupport.stream(new TakingSpliterator(), false);
	}

	/**
	 * Closes the queue: {@code push} throws {@link IllegalStateException} from now on,
	 * and {@code take}/{@code poll} stop blocking (waking every thread blocked in them),
	 * returning due values only, then {@code null}. Pending values stay; see the class
	 * description. Idempotent.
	 */
	@Override
	public void close() {
		this.lock.lock();
		try {
			this.closed = true;
			this.available.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public String toString() {
		return "DelayQueue[size=" + size() + "]";
	}

	boolean cancel(HeapEntry<T> entry) {
		this.lock.lock();
		try {
			if (entry.heapIndex < 0) {
				return false;
			}
			// A leader waiting for this entry wakes at its old due time and waits anew.
			this.heap.remove(entry);
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	boolean reschedule(HeapEntry<T> entry, Duration delay) {
		long dueNanos = dueNanos(delay);
		this.lock.lock();
		try {
			if (entry.heapIndex < 0) {
				return false;
			}
			entry.sequence = this.nextSequence++;
			this.heap.update(entry, dueNanos);
			signalIfHead(entry);
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	private long dueNanos(Duration delay) {
		long delayNanos = Nanos.of(Objects.requireNonNull(delay, "delay"));
		long nowNanos = this.clock.nanoTime();
		return (delayNanos <= 0) ? nowNanos : Nanos.add(nowNanos, delayNanos);
	}

	private void signalIfHead(HeapEntry<T> entry) {
		if (this.heap.peek() == entry) {
			// The leader waits for a later time: let a consumer (maybe the leader) take
			// the lead for this one.
			this.leader = null;
			this.available.signal();
		}
	}

	private T pollUntil(long deadlineNanos) throws InterruptedException {
		this.lock.lockInterruptibly();
		try {
			while (true) {
				HeapEntry<T> first = this.heap.peek();
				long firstDueNanos = (first != null) ? this.heap.firstDueNanos() : Long.MAX_VALUE;
				// A take on an empty queue has nothing to compare the time with.
				long nowNanos = (first != null || deadlineNanos != Long.MAX_VALUE) ? this.clock.nanoTime()
						: Long.MIN_VALUE;
				if (first != null && firstDueNanos <= nowNanos) {
					this.heap.poll();
					return first.value();
				}
				if (this.closed || nowNanos >= deadlineNanos) {
					return null;
				}
				if (first == null || this.leader != null || firstDueNanos > deadlineNanos) {
					this.clock.awaitUntil(this.lock, this.available, deadlineNanos);
				}
				else {
					Thread self = Thread.currentThread();
					this.leader = self;
					try {
						this.clock.awaitUntil(this.lock, this.available, firstDueNanos);
					}
					finally {
						if (this.leader == self) {
							this.leader = null;
						}
					}
				}
			}
		}
		finally {
			// Whoever leaves without a leader in place hands the lead on.
			if (this.leader == null && this.heap.peek() != null) {
				this.available.signal();
			}
			this.lock.unlock();
		}
	}

	/**
	 * A handle on one pushed value.
	 *
	 * @param <T> the value type
	 */
	public interface Entry<T> {

		/**
		 * Returns the pushed value.
		 * @return the value
		 */
		T value();

		/**
		 * Removes the value from the queue unless it has been taken or cancelled.
		 * @return {@code false} if already taken or cancelled
		 */
		boolean cancel();

		/**
		 * Makes the value due {@code delay} from now, ordered among equal due times as if
		 * pushed now, unless it has been taken or cancelled.
		 * @param delay how long from now; {@code <= 0} means due at once
		 * @return {@code false} if already taken or cancelled
		 */
		boolean reschedule(Duration delay);

	}

	/** Feeds a stream with {@link #take()}; cannot split, so it stays sequential. */
	private final class TakingSpliterator implements Spliterator<T> {

		@Override
		public boolean tryAdvance(Consumer<? super T> action) {
			T value;
			try {
				value = take();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
			if (value == null) {
				return false;
			}
			action.accept(value);
			return true;
		}

		@Override
		public Spliterator<T> trySplit() {
			return null;
		}

		@Override
		public long estimateSize() {
			return Long.MAX_VALUE;
		}

		@Override
		public int characteristics() {
			return ORDERED | NONNULL;
		}

	}

}
