package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

/**
 * Sends the {@code NOTIFY} of one queue's handle after its own commits that queued an
 * item again (a {@code done} of a dirty item, a hand-back, a reap; and a batch of adds
 * whose own notice PostgreSQL refused with a full {@code NOTIFY} queue: a batch of adds
 * otherwise notifies in its own transaction, {@link AddGroup}), debounced: at most one in
 * flight, later requests folded into one more. Each notice is a commit of its own, and a
 * {@code NOTIFY} takes one lock for the whole server (on "database 0", every database's
 * notifying commits share it) from its commit's start to its end, so one per request
 * would serialise a busy queue's committers, and those of other queues; folded, a burst
 * of requests costs two notices, and the last one always leaves after the last
 * {@link #send} began, so no commit goes unannounced. Each notice is stamped with the
 * handle's id, so that the handle itself does not hear it: it woke its own consumers when
 * it committed.
 * <p>
 * <b>How it works.</b> {@link #send} only records the request (the earliest due time
 * among those not yet sent, 0 for "ready now" winning) and wakes the sender's own thread,
 * <code>workqueue-&lt;queue&gt;-notices</code>, started by the first request. The thread
 * takes what is recorded, runs {@code SELECT pg_notify(channel, payload)} on a connection
 * of the data source (committing it if the pool hands out connections with auto-commit
 * off), and goes back for more. A thread per sender rather than a shared executor: the
 * thread is the one-in-flight rule itself (nothing to coordinate), a queue whose notices
 * stall (its pool exhausted, a slow commit) delays no other queue's, and the thread's
 * life is the handle's; it is parked while nothing is asked, and handles are few.
 * <p>
 * A failed notice is not repeated (consumers elsewhere still look for work every poll
 * interval); the failure is logged once per outage, at {@code WARNING}, and its end at
 * {@code INFO}. {@link #close()} sends what is still recorded, then ends the thread;
 * later requests are ignored.
 * <p>
 * <b>Concurrency.</b> {@code lock} guards the recorded request, {@code closed} and the
 * thread's creation, and is held only to read or write them: never across SQL, so
 * {@link #send} never waits for the database. The outage flag belongs to the thread.
 */
final class NoticeSender implements AutoCloseable {

	private static final System.Logger logger = System.getLogger(NoticeSender.class.getName());

	private static final SqlStatement NOTIFY = SqlStatement.load("notify", null);

	private final DataSource dataSource;

	private final String channel;

	private final String queue;

	/** The handle's id: the handle does not hear the notices it stamps. */
	private final String sender;

	private final String what;

	private final ReentrantLock lock = new ReentrantLock();

	/** Signalled when a request is recorded or the sender closes. */
	private final Condition requested = this.lock.newCondition();

	/** Whether a notice is asked for and not yet taken by the thread; under lock. */
	private boolean pending;

	/** The earliest due time among the pending requests, 0 for now; under lock. */
	private long pendingDueMillis;

	/** Set by {@link #close()}; under lock. */
	private boolean closed;

	/**
	 * The sender's thread, started by the first request; written under the lock, volatile
	 * so that tests read it without the lock.
	 */
	private volatile Thread thread;

	/** Whether the last notice failed; the thread's own. */
	private boolean failing;

	/**
	 * Creates a sender.
	 * @param dataSource where it takes a connection for each notice (auto-commit)
	 * @param channel the table's channel
	 * @param queue the queue's name
	 * @param sender the handle's id, which stamps its notices
	 * ({@link Notices#payload(String, long, String)})
	 * @param what names the queue in log lines
	 */
	NoticeSender(DataSource dataSource, String channel, String queue, String sender, String what) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
		this.channel = Objects.requireNonNull(channel, "channel");
		this.queue = Objects.requireNonNull(queue, "queue");
		this.sender = Objects.requireNonNull(sender, "sender");
		this.what = Objects.requireNonNull(what, "what");
	}

	/**
	 * Asks for a notice soon; never blocks and never throws.
	 * @param dueEpochMillis when the added item becomes ready; 0 for now
	 */
	void send(long dueEpochMillis) {
		long due = Math.max(0, dueEpochMillis);
		this.lock.lock();
		try {
			if (this.closed) {
				return;
			}
			// The earliest wins; 0, "ready now", is the earliest.
			this.pendingDueMillis = this.pending ? Math.min(this.pendingDueMillis, due) : due;
			this.pending = true;
			if (this.thread == null) {
				this.thread = new Thread(this::run, "workqueue-" + this.queue + "-notices");
				this.thread.setDaemon(true);
				this.thread.start();
			}
			else {
				this.requested.signal();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops the sender: what is recorded is still sent, later requests are ignored, and
	 * the thread ends. Does not wait.
	 */
	@Override
	public void close() {
		this.lock.lock();
		try {
			this.closed = true;
			this.requested.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The thread, or {@code null} before the first request; for tests. */
	Thread thread() {
		return this.thread;
	}

	private void run() {
		while (true) {
			long due;
			this.lock.lock();
			try {
				while (!this.pending && !this.closed) {
					this.requested.await();
				}
				if (!this.pending) {
					return;
				}
				// Taken under the lock: a request recorded from now on makes one more
				// notice, sent after this one.
				due = this.pendingDueMillis;
				this.pending = false;
			}
			catch (InterruptedException ex) {
				// Nobody interrupts this thread but a JVM going down: stop.
				Thread.currentThread().interrupt();
				return;
			}
			finally {
				this.lock.unlock();
			}
			notifyListeners(due);
		}
	}

	private void notifyListeners(long dueMillis) {
		try (Connection connection = this.dataSource.getConnection()) {
			// A NOTIFY is delivered at commit.
			QueueDatabase.inOwnTransaction(connection, (own) -> {
				try (PreparedStatement statement = NOTIFY.prepare(own)) {
					NOTIFY.setString(statement, "channel", this.channel);
					NOTIFY.setString(statement, "payload", Notices.payload(this.queue, dueMillis, this.sender));
					return statement.execute();
				}
			});
			if (this.failing) {
				this.failing = false;
				logger.log(Level.INFO, "Notices of " + this.what + " are sent again");
			}
		}
		catch (SQLException | RuntimeException ex) {
			if (!this.failing) {
				this.failing = true;
				logger.log(Level.WARNING, "Cannot notify the other instances of items queued again in " + this.what
						+ "; their consumers look for work every poll interval until notices work again", ex);
			}
			else {
				logger.log(Level.DEBUG, "Notices of " + this.what + " still fail", ex);
			}
		}
	}

}
