package dev.workqueue.shared;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import dev.workqueue.DelayingQueue;

/**
 * One test's queue in a shared store, as {@link SharedQueueContract} needs it: a store's
 * test class makes one per test (its own key prefix or table, so that tests and people
 * sharing the server never meet) and the contract opens handles of that one queue, each
 * as another process's instance would be: connections of its own, the lease it is given,
 * the store's default clock.
 * <p>
 * Faults any store can suffer go through a {@link FaultProxy} the contract puts in front
 * of {@link #server()} ({@link #open(Duration, int)}); faults only some stores can make
 * are optional hooks, empty by default, and a test that needs a missing one is skipped
 * with the reason.
 */
public interface SharedStore extends AutoCloseable {

	/**
	 * The store's name, for the reason a test is skipped.
	 * @return e.g. "PostgreSQL"
	 */
	String name();

	/**
	 * Text that a handle's request to claim items carries on the wire, and no other
	 * request does, so that a {@link FaultProxy} can hold up a claim's answer (a store
	 * may configure the handles it opens through a proxy so that the text is sent with
	 * every claim).
	 * @return the marker, in ASCII
	 */
	String claimMarker();

	/**
	 * Opens a new handle on the test's queue, connected straight to the server.
	 * @param lease the handle's lease
	 * @return the handle, shut down by {@link #close()}
	 */
	DelayingQueue<String> open(Duration lease);

	/**
	 * Opens a new handle on the test's queue whose every connection goes through
	 * {@code port} on the loopback interface (a {@link FaultProxy} in front of
	 * {@link #server()}).
	 * @param lease the handle's lease
	 * @param port the loopback port to connect to
	 * @return the handle, shut down by {@link #close()}
	 */
	DelayingQueue<String> open(Duration lease, int port);

	/**
	 * The store's server, for a {@link FaultProxy}.
	 * @return its address
	 */
	InetSocketAddress server();

	/**
	 * How a child JVM opens a handle of the test's queue ({@link SharedQueueProcess}):
	 * the name of a {@link ProcessOpener} class with a public no-argument constructor,
	 * then its arguments.
	 * @return the opener's class name and arguments
	 */
	List<String> processOpener();

	/**
	 * How long until the latest lease of the test's queue runs out, on the store's own
	 * clock: never more than a lease, whatever happened to its holder.
	 * @return the time left, or empty while no item is held
	 * @throws Exception if the store cannot be asked
	 */
	Optional<Duration> latestLease() throws Exception;

	/**
	 * Locks an item's record in the store from another session, as an application's
	 * transaction or an operator's {@code SELECT ... FOR UPDATE} does, where the store
	 * has such locks.
	 * @return the hook, or empty where the store has no row locks
	 */
	default Optional<RowLocks> rowLocks() {
		return Optional.empty();
	}

	/**
	 * Reaches the leases of the test's queue in the store, from outside the handles.
	 * @return the hook, or empty where the store cannot
	 */
	default Optional<Leases> leases() {
		return Optional.empty();
	}

	/**
	 * What the store holds of {@code items} of the test's queue, read from outside the
	 * handles: their records, leases and given-up records, as text, for a failure message
	 * that says where an item no process reported went.
	 * @param items the items
	 * @return the text, or empty where the store cannot tell
	 * @throws Exception if the store cannot be asked
	 */
	default Optional<String> records(Collection<String> items) throws Exception {
		return Optional.empty();
	}

	/**
	 * Shuts down every handle opened here, hands back what they hold, and removes
	 * everything the test wrote in the store.
	 */
	@Override
	void close() throws Exception;

	/** Locks an item's row in a session of the store's own. */
	interface RowLocks {

		/**
		 * Locks {@code item}'s row until the returned lock is closed.
		 * @param item the item whose row to lock
		 * @return the open lock (its transaction), to close
		 * @throws Exception if the store refuses
		 */
		AutoCloseable lock(String item) throws Exception;

	}

	/**
	 * What the store's own sessions can do to the leases of the test's queue, as an
	 * operator's or another session's commands would, never through a handle.
	 */
	interface Leases {

		/**
		 * Reads the fencing token of an item's lease.
		 * @param item the item
		 * @return its lease's token as the store keeps it, or {@code null} while no lease
		 * holds it
		 * @throws Exception if the store cannot be asked
		 */
		String token(String item) throws Exception;

		/**
		 * Does to an item's lease what the store's reaper does to one that ran out: the
		 * lease is gone and the item queued again, as if its holder had stopped renewing
		 * it a lease ago.
		 * @param item an item a lease holds
		 * @throws Exception if the store refuses
		 */
		void expire(String item) throws Exception;

		/**
		 * Removes everything the test's queue keeps in the store, as an operator emptying
		 * it (deleting its keys, truncating its tables) would.
		 * @throws Exception if the store refuses
		 */
		void empty() throws Exception;

	}

	/**
	 * Opens, in a child JVM, a handle of the queue a store's test made: the store's side
	 * of {@link SharedQueueProcess}.
	 */
	interface ProcessOpener {

		/**
		 * Opens a handle.
		 * @param arguments the arguments {@link SharedStore#processOpener()} gave after
		 * the class name
		 * @param lease the handle's lease
		 * @return the handle
		 * @throws Exception if it cannot be opened
		 */
		DelayingQueue<String> open(List<String> arguments, Duration lease) throws Exception;

	}

}
