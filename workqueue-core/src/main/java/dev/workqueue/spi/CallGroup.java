package dev.workqueue.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Group commit for a shared backend: concurrent calls of one handle share one write (one
 * statement and commit, one script). The first caller that finds no batch running becomes
 * the leader: it takes everything queued so far (its own requests included) and hands it
 * to the batch writer; the others wait, and each returns only once the batch that holds
 * its last request has been written. Whoever finds its requests still queued when a batch
 * ends leads the next one. A lone call is a batch of its own: no wait, no timer.
 * <p>
 * The writer writes each request's outcome into the request itself (a failure too: it
 * must not throw for a request's fault); a caller reads its requests' outcomes after
 * {@link #join} returns.
 * <p>
 * Thread-safe: {@code lock} guards {@code queued}, {@code running} and the two counts.
 * Batches are taken in queue order and written one at a time, so a caller whose requests
 * were queued at positions before {@code end} is done once {@code written >= end}. The
 * writer writes the outcomes before the leader takes the lock to count the batch written,
 * and a caller reads them after it sees that count under the lock: the lock orders them.
 *
 * @param <R> the request type, which carries its own outcome
 */
public final class CallGroup<R> {

	private final int maxBatch;

	private final Consumer<List<R>> writer;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition batchWritten = this.lock.newCondition();

	private List<R> queued = new ArrayList<>();

	/** Requests ever queued; guarded by the lock. */
	private long enqueued;

	/** Requests whose batch has been written, in queue order; guarded by the lock. */
	private long written;

	private boolean running;

	/**
	 * Creates a group.
	 * @param maxBatch the most requests handed to the writer at once
	 * @param writer writes a batch and each request's outcome, on the leader's thread; an
	 * exception it throws reaches the leader only
	 * @throws IllegalArgumentException if {@code maxBatch < 1}
	 */
	public CallGroup(int maxBatch, Consumer<List<R>> writer) {
		if (maxBatch < 1) {
			throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
		}
		this.maxBatch = maxBatch;
		this.writer = Objects.requireNonNull(writer, "writer");
	}

	/**
	 * Queues requests and returns once every one of them has been written. Not
	 * interruptible: a caller cannot be told that a write it asked for did not happen
	 * when it may have (an interrupt during the wait is kept for the caller).
	 * @param requests the requests, not empty
	 */
	public void join(List<? extends R> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("requests must not be empty");
		}
		this.lock.lock();
		try {
			this.queued.addAll(requests);
			this.enqueued += requests.size();
			long end = this.enqueued;
			while (this.written < end) {
				if (this.running) {
					this.batchWritten.awaitUninterruptibly();
					continue;
				}
				this.running = true;
				List<R> batch = takeBatch();
				this.lock.unlock();
				try {
					this.writer.accept(batch);
				}
				finally {
					this.lock.lock();
					this.running = false;
					this.written += batch.size();
					this.batchWritten.signalAll();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Takes the next batch off the queue. Called under the lock. */
	private List<R> takeBatch() {
		if (this.queued.size() <= this.maxBatch) {
			List<R> batch = this.queued;
			this.queued = new ArrayList<>();
			return batch;
		}
		List<R> batch = new ArrayList<>(this.queued.subList(0, this.maxBatch));
		this.queued = new ArrayList<>(this.queued.subList(this.maxBatch, this.queued.size()));
		return batch;
	}

}
