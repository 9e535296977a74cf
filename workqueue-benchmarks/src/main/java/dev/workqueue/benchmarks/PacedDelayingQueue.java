package dev.workqueue.benchmarks;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.kubernetes.client.extended.workqueue.DefaultDelayingQueue;

/**
 * client-java's {@link DefaultDelayingQueue}, driven so that it drops nothing.
 * <p>
 * Its {@code addAfter} offers each entry to a 1,000-slot hand-off queue drained by one
 * waiting thread, and silently drops the entry when that queue is full: unpaced, a fast
 * producer loses most of its items. {@link #addAfterPaced} first waits (yielding) until
 * the hand-off has a free slot. With a single producer that slot cannot be taken by
 * anyone else before the offer, so no entry is ever dropped, and the producer runs at the
 * rate the waiting thread sustains. {@link #waitingItems()} lets benchmarks verify it.
 * <p>
 * Its waiting thread runs in our own daemon executor, shut down by {@link #close()}.
 *
 * @param <T> the item type
 */
final class PacedDelayingQueue<T> extends DefaultDelayingQueue<T> implements AutoCloseable {

	private static final Field WAITING_ENTRIES;

	static {
		try {
			WAITING_ENTRIES = DefaultDelayingQueue.class.getDeclaredField("waitingEntryByData");
			WAITING_ENTRIES.setAccessible(true);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final ExecutorService waitingThread;

	private PacedDelayingQueue(ExecutorService waitingThread) {
		super(waitingThread);
		this.waitingThread = waitingThread;
	}

	static <T> PacedDelayingQueue<T> start() {
		return new PacedDelayingQueue<>(Executors.newSingleThreadExecutor(new DaemonThreads("client-java-delay")));
	}

	/**
	 * Calls {@code addAfter} once the hand-off queue has room. Single producer only.
	 * @param item the item
	 * @param delay the delay
	 */
	void addAfterPaced(T item, Duration delay) {
		awaitRoom();
		addAfter(item, delay);
	}

	/** Waits (yielding) until the hand-off queue has a free slot. */
	void awaitRoom() {
		while (this.waitingForAddQueue.remainingCapacity() == 0) {
			Thread.yield();
		}
	}

	/**
	 * Returns the number of items waiting in the heap (its dedup map's size); entries
	 * still in the hand-off queue are not counted.
	 * @return the number of waiting items
	 */
	int waitingItems() {
		try {
			return ((Map<?, ?>) WAITING_ENTRIES.get(this)).size();
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		shutDown();
		// Interrupts the waiting thread's timed poll, which ends its loop.
		this.waitingThread.shutdownNow();
	}

}
