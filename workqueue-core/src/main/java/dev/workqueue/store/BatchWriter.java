package dev.workqueue.store;

/**
 * A store's side of grouped calls ({@link CallGroup}): writes a batch of requests in one
 * store call (one script, one statement and commit) and gives each request its outcome.
 * <p>
 * Called on the thread of whichever caller leads the batch, while the other callers of
 * the group wait for it: a writer must not call user code (a metrics hook, a listener)
 * nor the group again, since a call of the group made from inside its write would wait
 * for that very write. The callers report what they must on their own threads once their
 * calls return. Batches are written one at a time, so a writer needs no lock of its own
 * for the batch it writes.
 *
 * @param <A> what a request asks the store to write
 * @param <O> what the store answers for a request
 */
public interface BatchWriter<A, O> {

	/**
	 * Writes a batch and gives each of its requests an outcome ({@link Batch#written
	 * written} or {@link Batch#failed failed}). An exception or error thrown fails every
	 * request that has no outcome yet: none returns as written when it may not have been.
	 * @param batch the requests, in the order they were made
	 */
	void write(Batch<A, O> batch);

	/**
	 * Returns the exception a caller throws for a request that failed, of the store's own
	 * type whatever the cause (an {@link Error} thrown by the writer included). Called by
	 * each caller of a failed batch on its own thread; a writer may return the same
	 * instance to each (the store's exception itself, when it cannot make one of that
	 * type anew), so the callers of one batch may share one exception, its stack trace
	 * and its suppressed ones.
	 * @param cause what {@link Batch#failed} was given, or what {@link #write} threw
	 * @return the exception to throw
	 */
	RuntimeException failure(Throwable cause);

	/**
	 * The requests a writer writes at once, and their outcomes. Not thread-safe: used by
	 * the writer only, during {@link BatchWriter#write}.
	 *
	 * @param <A> what a request asks the store to write
	 * @param <O> what the store answers for a request
	 */
	interface Batch<A, O> {

		/**
		 * Returns how many requests the batch holds.
		 * @return at least one, at most the group's bound
		 */
		int size();

		/**
		 * Returns what a request asks.
		 * @param index its place in the batch
		 * @return what it asks
		 */
		A argument(int index);

		/**
		 * Returns the call a request belongs to: the requests of one
		 * {@link CallGroup#callAll} share it, and a store that must fail one call alone
		 * (an item it cannot store, say) tells the calls apart by it.
		 * @param index its place in the batch
		 * @return its call, compared by identity
		 */
		Object call(int index);

		/**
		 * Gives a request the store's answer.
		 * @param index its place in the batch
		 * @param outcome the answer, not {@code null}
		 */
		void written(int index, O outcome);

		/**
		 * Fails a request: its caller throws {@link BatchWriter#failure failure(cause)}.
		 * @param index its place in the batch
		 * @param cause why
		 */
		void failed(int index, Throwable cause);

	}

}
