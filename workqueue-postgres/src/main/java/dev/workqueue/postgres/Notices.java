package dev.workqueue.postgres;

import java.sql.Connection;
import java.util.function.Supplier;

/**
 * The one {@code LISTEN} connection of this JVM for one database, shared by the queues
 * that listen there. (Issue #30: being written; the signatures are fixed.)
 */
final class Notices {

	private Notices() {
	}

	/**
	 * Returns the shared instance for {@code key}, opening its connection through
	 * {@code connections} on first use; each call must be paired with {@link #release()}.
	 * @param key what identifies the database (the builder's listen-connection source)
	 * @param connections opens a new connection outside any pool
	 * @return the shared instance
	 */
	static Notices acquire(Object key, Supplier<Connection> connections) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/**
	 * Subscribes a queue's handle to the notices of its queue.
	 * @param channel the table's channel, {@link #channel(String)}
	 * @param queue the queue's name
	 * @param listener what hears them
	 * @return the subscription, to close when the handle shuts down
	 */
	Subscription subscribe(String channel, String queue, Listener listener) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/** Gives back one {@link #acquire}; the last one closes the connection. */
	void release() {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/**
	 * The channel of a table's queues: at most 63 bytes, distinct for distinct tables.
	 * @param table the table, as the builder has it
	 * @return the channel name
	 */
	static String channel(String table) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/**
	 * The payload of a notice.
	 * @param queue the queue's name
	 * @param dueEpochMillis when the item that caused it becomes ready; 0 for now
	 * @return the payload
	 */
	static String payload(String queue, long dueEpochMillis) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	/** What hears one queue's notices; called on the listener thread, must not block. */
	interface Listener {

		/**
		 * A notice came: an add committed.
		 * @param dueEpochMillis when that item becomes ready; 0 for now
		 */
		void notice(long dueEpochMillis);

		/** The connection was lost and is back: notices may have been missed. */
		void missedNotices();

	}

	/** A subscription. */
	interface Subscription extends AutoCloseable {

		@Override
		void close();

	}

}
