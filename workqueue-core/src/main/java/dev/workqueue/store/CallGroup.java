package dev.workqueue.store;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * Grouped calls of one handle on a shared store (group commit): concurrent calls share
 * one write, one script or one statement and commit, made by a {@link BatchWriter}. The
 * first caller that finds no batch running leads: it takes everything queued so far (its
 * own requests included) and hands it to the writer; the others wait, and each returns
 * only once the batch that holds its last request has been written. Whoever finds its
 * requests still queued when a batch ends leads the next one. A lone call is a batch of
 * its own, with no timer; it waits only as long as the group's {@link Linger} has it wait
 * (none without one).
 * <p>
 * <b>Outcomes.</b> Every request gets one: the store's answer, or a failure, which its
 * caller throws as {@link BatchWriter#failure}. A writer that throws, an {@link Error}
 * included, fails every request of its batch that has no outcome yet, so no caller
 * returns as if written when its request may not have been; the leader rethrows an
 * {@code Error} once its own requests have their outcomes. Callers read their outcomes on
 * their own threads after the group, where they also call their hooks: the writer calls
 * no user code, and a call of the group from inside its write (which would wait for
 * itself for good) fails at once.
 * <p>
 * <b>Lingering.</b> A group made with a {@link Linger} lets its leader wait a little,
 * before it takes its batch, for requests its linger expects soon (callers busy for a
 * moment with what the previous batch gave them): their requests join this batch instead
 * of waiting for the next one. The wait is bounded by the linger, ends as soon as it
 * expects no more (asked again each time a request is queued) or the batch is full, and
 * holds the group: no other batch is written meanwhile. The linger is told of each batch
 * before and after its write, to time it and to see who comes next. A linger that throws
 * is no linger: the batch is taken and written as without one, and an {@link Error} is
 * rethrown by the leader once its own requests have their outcomes, as a writer's.
 * <p>
 * <b>Concurrency.</b> {@code lock} guards {@code queued}, {@code writer}'s thread
 * ({@code writing}) and the two counts. Batches are taken in queue order and written one
 * at a time, so a caller whose requests were queued at positions before {@code end} is
 * done once {@code written >= end}. The writer writes the outcomes before the leader
 * takes the lock to count the batch written, and a caller reads them after it sees that
 * count under the lock: the lock orders them.
 *
 * @param <A> what a request asks the store to write
 * @param <O> what the store answers for a request
 */
public final class CallGroup<A, O> {

	/** A request waiting for its batch, and then its outcome. */
	private static final class Request<A, O> {

		final A argument;

		/** The call it belongs to: itself, or the requests of one {@link #callAll}. */
		Object call = this;

		/** The store's answer, {@code null} until written. */
		O outcome;

		Throwable failure;

		Request(A argument) {
			this.argument = argument;
		}

	}

	/** A batch as its writer sees it. */
	private static final class Taken<A, O> implements BatchWriter.Batch<A, O> {

		final List<Request<A, O>> requests;

		Taken(List<Request<A, O>> requests) {
			this.requests = requests;
		}

		@Override
		public int size() {
			return this.requests.size();
		}

		@Override
		public A argument(int index) {
			return this.requests.get(index).argument;
		}

		@Override
		public Object call(int index) {
			return this.requests.get(index).call;
		}

		@Override
		public void written(int index, O outcome) {
			Request<A, O> request = this.requests.get(index);
			request.outcome = Objects.requireNonNull(outcome, "outcome");
			request.failure = null;
		}

		@Override
		public void failed(int index, Throwable cause) {
			Request<A, O> request = this.requests.get(index);
			request.outcome = null;
			request.failure = Objects.requireNonNull(cause, "cause");
		}

		/**
		 * How many calls this batch finished: the calls it holds requests of, but one
		 * whose requests go on in {@code queued} (a {@link CallGroup#callAll} longer than
		 * the batch bound). A call's requests are queued together, so only the last can
		 * go on.
		 */
		int finishedCalls(List<Request<A, O>> queued) {
			int calls = 0;
			for (int n = 0; n < this.requests.size(); n++) {
				if (n == this.requests.size() - 1 || this.requests.get(n).call != this.requests.get(n + 1).call) {
					calls++;
				}
			}
			Object last = this.requests.get(this.requests.size() - 1).call;
			return (!queued.isEmpty() && queued.get(0).call == last) ? calls - 1 : calls;
		}

		/** Fails every request that has no outcome yet, with what {@code cause} gives. */
		void failUndone(Supplier<Throwable> cause) {
			Throwable failure = null;
			for (Request<A, O> request : this.requests) {
				if (request.outcome == null && request.failure == null) {
					failure = (failure != null) ? failure : cause.get();
					request.failure = failure;
				}
			}
		}

	}

	private final int maxBatch;

	private final BatchWriter<A, O> writer;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition batchWritten = this.lock.newCondition();

	/** Signalled when a request is queued: a lingering leader asks its linger again. */
	private final Condition moreQueued = this.lock.newCondition();

	private final Linger<? super A> linger;

	/** The arguments of the queued requests, as the linger reads them under the lock. */
	private final List<A> queuedArguments = new AbstractList<>() {

		@Override
		public A get(int index) {
			return CallGroup.this.queued.get(index).argument;
		}

		@Override
		public int size() {
			return CallGroup.this.queued.size();
		}

	};

	private List<Request<A, O>> queued = new ArrayList<>();

	/** Requests ever queued; guarded by the lock. */
	private long enqueued;

	/** Requests whose batch has been written, in queue order; guarded by the lock. */
	private long written;

	/** The thread writing a batch, {@code null} when none is; guarded by the lock. */
	private Thread writing;

	/**
	 * Creates a group.
	 * @param maxBatch the most requests handed to the writer at once
	 * @param writer the store's write
	 * @throws IllegalArgumentException if {@code maxBatch < 1}
	 */
	public CallGroup(int maxBatch, BatchWriter<A, O> writer) {
		this(maxBatch, writer, Linger.NONE);
	}

	/**
	 * Creates a group whose leaders linger for the requests {@code linger} expects.
	 * @param maxBatch the most requests handed to the writer at once
	 * @param writer the store's write
	 * @param linger how long a leader waits for more requests
	 * @throws IllegalArgumentException if {@code maxBatch < 1}
	 */
	public CallGroup(int maxBatch, BatchWriter<A, O> writer, Linger<? super A> linger) {
		if (maxBatch < 1) {
			throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
		}
		this.maxBatch = maxBatch;
		this.writer = Objects.requireNonNull(writer, "writer");
		this.linger = Objects.requireNonNull(linger, "linger");
	}

	/**
	 * Makes one request and returns once it has been written. Not interruptible: a caller
	 * cannot be told that a write it asked for did not happen when it may have (an
	 * interrupt during the wait is kept for the caller).
	 * @param argument what to write
	 * @return the store's answer
	 * @throws RuntimeException the writer's {@link BatchWriter#failure} if the request
	 * failed
	 * @throws IllegalStateException if called from inside this group's write
	 */
	public O call(A argument) {
		Request<A, O> request = new Request<>(argument);
		join(request, null);
		return outcome(request);
	}

	/**
	 * Makes several requests, one call, and returns once every one of them has been
	 * written. Not interruptible, as {@link #call}.
	 * @param arguments what to write, not empty
	 * @return the store's answers, in order
	 * @throws RuntimeException the writer's {@link BatchWriter#failure} for the first
	 * request that failed
	 * @throws IllegalStateException if called from inside this group's write
	 */
	public List<O> callAll(List<? extends A> arguments) {
		if (arguments.isEmpty()) {
			throw new IllegalArgumentException("arguments must not be empty");
		}
		List<Request<A, O>> mine = new ArrayList<>(arguments.size());
		for (A argument : arguments) {
			Request<A, O> request = new Request<>(argument);
			request.call = mine;
			mine.add(request);
		}
		join(null, mine);
		List<O> outcomes = new ArrayList<>(mine.size());
		for (Request<A, O> request : mine) {
			outcomes.add(outcome(request));
		}
		return outcomes;
	}

	private O outcome(Request<A, O> request) {
		if (request.failure != null) {
			throw this.writer.failure(request.failure);
		}
		return request.outcome;
	}

	/** Queues one request or several, and leads or waits until all are written. */
	private void join(Request<A, O> one, List<Request<A, O>> several) {
		Error error = null;
		this.lock.lock();
		try {
			if (this.writing == Thread.currentThread()) {
				throw new IllegalStateException("A call of the group was made from inside its own write (by a hook,"
						+ " say), where it would wait for itself: call it after the group's call returns");
			}
			if (one != null) {
				this.queued.add(one);
				this.enqueued++;
			}
			else {
				this.queued.addAll(several);
				this.enqueued += several.size();
			}
			this.moreQueued.signalAll();
			long end = this.enqueued;
			while (this.written < end) {
				if (this.writing != null) {
					this.batchWritten.awaitUninterruptibly();
					continue;
				}
				this.writing = Thread.currentThread();
				Taken<A, O> batch = null;
				try {
					error = linger(error);
					batch = new Taken<>(takeBatch());
					boolean told = this.linger != Linger.NONE;
					if (told) {
						int size = batch.size();
						error = tell(() -> this.linger.writing(size), error);
					}
					this.lock.unlock();
					try {
						error = write(batch, error);
					}
					finally {
						this.lock.lock();
					}
					if (told) {
						int finished = batch.finishedCalls(this.queued);
						error = tell(() -> this.linger.written(finished, this.queuedArguments), error);
					}
				}
				finally {
					// Whatever was thrown: the next leader must not find the group held.
					this.writing = null;
					if (batch != null) {
						this.written += batch.size();
					}
					this.batchWritten.signalAll();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		if (error != null) {
			throw error;
		}
	}

	/**
	 * Writes a batch, failing what has no outcome if the writer throws.
	 * @return the first error thrown by a write this leader made
	 */
	private Error write(Taken<A, O> batch, Error earlier) {
		try {
			this.writer.write(batch);
			batch.failUndone(() -> new IllegalStateException(this.writer + " gave a request no outcome"));
			return earlier;
		}
		catch (RuntimeException ex) {
			batch.failUndone(() -> ex);
			return earlier;
		}
		catch (Error ex) {
			batch.failUndone(() -> ex);
			return (earlier != null) ? earlier : ex;
		}
	}

	/**
	 * Waits, as the leader, while the linger expects more requests, within its bound; an
	 * interrupt ends the wait and is kept for the caller. A linger that throws ends the
	 * wait: a {@code RuntimeException} is dropped (no linger), an {@code Error} returned
	 * for the leader to rethrow once its batch is written. Called under the lock (the
	 * wait releases it), with {@code writing} set: no other batch starts meanwhile.
	 * @return the first error this leader met
	 */
	private Error linger(Error earlier) {
		if (this.queued.size() >= this.maxBatch) {
			// Nothing could join: not a linger, so not asked (it would judge one).
			return earlier;
		}
		try {
			long boundNanos = this.linger.boundNanos(this.queuedArguments);
			if (boundNanos <= 0) {
				return earlier;
			}
			// A real-time device: a fake clock of the queue's must not hold it up.
			Clock realTime = Clock.system();
			long deadlineNanos = Nanos.add(realTime.nanoTime(), boundNanos);
			while (realTime.nanoTime() < deadlineNanos && this.queued.size() < this.maxBatch
					&& this.linger.expectsMore(this.queuedArguments)) {
				realTime.awaitUntil(this.lock, this.moreQueued, deadlineNanos);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RuntimeException ex) {
			// A performance device only: its failure must not fail the calls.
		}
		catch (Error ex) {
			return (earlier != null) ? earlier : ex;
		}
		return earlier;
	}

	/**
	 * Tells the linger of a batch, as {@link #linger} asks it: a {@code RuntimeException}
	 * is dropped, an {@code Error} returned for the leader to rethrow once its batch is
	 * written.
	 * @return the first error this leader met
	 */
	private static Error tell(Runnable hook, Error earlier) {
		try {
			hook.run();
		}
		catch (RuntimeException ex) {
			// A performance device only: its failure must not fail the calls.
		}
		catch (Error ex) {
			return (earlier != null) ? earlier : ex;
		}
		return earlier;
	}

	/** Takes the next batch off the queue. Called under the lock. */
	private List<Request<A, O>> takeBatch() {
		if (this.queued.size() <= this.maxBatch) {
			List<Request<A, O>> batch = this.queued;
			this.queued = new ArrayList<>();
			return batch;
		}
		List<Request<A, O>> batch = new ArrayList<>(this.queued.subList(0, this.maxBatch));
		this.queued = new ArrayList<>(this.queued.subList(this.maxBatch, this.queued.size()));
		return batch;
	}

	/**
	 * How long a group's leader waits for more requests before it takes its batch. Called
	 * under the group's lock, by the leader, on its thread: it must be quick, must not
	 * call the group, and should not throw (a throw ends the wait, see above).
	 *
	 * @param <A> what a request asks the store to write
	 */
	public interface Linger<A> {

		/** Never waits. */
		Linger<Object> NONE = new Linger<>() {

			@Override
			public long boundNanos(List<?> queued) {
				return 0;
			}

			@Override
			public boolean expectsMore(List<?> queued) {
				return false;
			}

		};

		/**
		 * The longest a leader about to take its batch may wait, in real time; asked once
		 * per batch.
		 * @param queued the arguments queued so far, the leader's among them, in order: a
		 * view, valid during the call only
		 * @return the bound in nanoseconds, 0 or less for no wait
		 */
		long boundNanos(List<? extends A> queued);

		/**
		 * Whether requests are still expected soon: asked before the wait and again each
		 * time the leader wakes (a request was queued, or a spurious wake-up).
		 * @param queued the arguments queued so far, as for {@link #boundNanos}
		 * @return {@code true} to keep waiting, within the bound
		 */
		boolean expectsMore(List<? extends A> queued);

		/**
		 * Told when the leader is about to hand a batch to the writer (after any linger).
		 * @param requests how many requests the batch holds
		 */
		default void writing(int requests) {
		}

		/**
		 * Told when the writer is done with a batch, written or failed, before the group
		 * lets the next leader in (so before any caller it finished can queue again).
		 * @param finishedCalls how many calls the batch finished (those whose last
		 * request it held), whose callers may come back
		 * @param queued the arguments queued now: those a batch bound left behind, then
		 * those queued while it was written, in order; a view, valid during the call only
		 */
		default void written(int finishedCalls, List<? extends A> queued) {
		}

	}

}
