package dev.workqueue.postgres;

import javax.sql.DataSource;

/**
 * Sends the {@code NOTIFY} of one queue's handle after its own committed adds, debounced:
 * at most one in flight, later requests folded into one more. (Issue #30: being written;
 * the signatures are fixed.)
 */
final class NoticeSender implements AutoCloseable {

	/**
	 * Creates a sender.
	 * @param dataSource where it takes a connection for each notice (auto-commit)
	 * @param channel the table's channel
	 * @param queue the queue's name
	 * @param what names the queue in log lines
	 */
	NoticeSender(DataSource dataSource, String channel, String queue, String what) {
	}

	/**
	 * Asks for a notice soon; never blocks and never throws.
	 * @param dueEpochMillis when the added item becomes ready; 0 for now
	 */
	void send(long dueEpochMillis) {
		throw new UnsupportedOperationException("#30: not written yet");
	}

	@Override
	public void close() {
	}

}
