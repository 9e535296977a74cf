package dev.workqueue.postgres;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.workqueue.store.LeaseBook;

/**
 * Lets a queue's failure counts forget an item's history in the statement of its
 * {@code done} rather than in one of their own. A worker that succeeds forgets the item
 * (its limiter's history and its {@code max-retries} attempts), then marks it done: two
 * deletes and a done, three commits per item, where one suffices. While a handle of the
 * queue holds the item live, its failure counts (built by the same queue builder, see
 * {@link PostgresWorkQueues.Builder#rateLimiters()}) hand the forget to that lease, and
 * the done deletes the history together with the row, in one transaction.
 * <p>
 * Nothing else sees the history meanwhile: the item is held, so no other instance counts
 * its failures, and a read or a count of this instance takes the deferred forget back and
 * runs it first. A hold that ends without a done (handed back, lost) runs its deferred
 * forgets on its own. A forget made inside the caller's transaction runs in it, as
 * before.
 * <p>
 * Thread-safe: the handles are in a copy-on-write list; each deferral is atomic with the
 * end of the hold it rides on ({@link LeaseBook}).
 *
 * @param <T> the item type
 */
final class Forgets<T> {

	private final List<LeaseBook<T, ?>> books = new CopyOnWriteArrayList<>();

	/**
	 * Lets the failure counts reach a handle's leases, for the builder's life (a handle
	 * shut down and drained holds nothing, so its book defers nothing).
	 */
	void attach(LeaseBook<T, ?> book) {
		this.books.add(book);
	}

	/**
	 * Defers a forget to the done of a live lease of the item, if a handle holds one.
	 * @return whether deferred; if not, the caller forgets now
	 */
	boolean defer(T item, String kind) {
		for (LeaseBook<T, ?> book : this.books) {
			if (book.deferForget(item, kind)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Takes back a deferred forget of the item, for a read or a count that must see the
	 * history as forgotten.
	 * @return whether one was deferred; the caller then forgets now
	 */
	boolean takeBack(T item, String kind) {
		boolean taken = false;
		for (LeaseBook<T, ?> book : this.books) {
			taken |= book.takeForget(item, kind);
		}
		return taken;
	}

}
