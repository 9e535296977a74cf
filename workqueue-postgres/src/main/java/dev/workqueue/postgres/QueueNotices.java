package dev.workqueue.postgres;

import java.sql.Connection;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.workqueue.store.ReadySignal;

/**
 * A handle's part in the wake-ups across instances: it tells the others when its own
 * commits queue an item, and hears theirs. The handle reaches {@link Notices} and
 * {@link NoticeSender} only through this seam, and only when it listens: a poll-only
 * handle ({@link #NONE}) opens no {@code LISTEN} connection and sends no {@code NOTIFY}
 * (instances that share a queue should agree on listening).
 */
interface QueueNotices {

	/** Poll-only: nothing sent, nothing heard. */
	QueueNotices NONE = new QueueNotices() {

		@Override
		public void queued(long dueEpochMillis) {
		}

		@Override
		public String channel() {
			return null;
		}

		@Override
		public String payload(long dueEpochMillis) {
			throw new IllegalStateException("a poll-only queue sends no notices");
		}

		@Override
		public String stamp() {
			return null;
		}

		@Override
		public String unstamped() {
			return null;
		}

		@Override
		public void consuming() {
		}

		@Override
		public void stopListening() {
		}

		@Override
		public void close() {
		}

	};

	/**
	 * A commit of this handle (not in a caller's transaction, nor a batch of adds, which
	 * notifies in its own transaction unless PostgreSQL's {@code NOTIFY} queue is full)
	 * queued an item, and the handle signalled its own consumers: the others hear of it
	 * soon, from the notice thread, this handle does not. Never blocks, never throws.
	 * @param dueEpochMillis when it is ready, on the statements' clock; 0 for now
	 */
	void queued(long dueEpochMillis);

	/**
	 * The channel that the statements notify in their own transaction: an add in the
	 * caller's transaction ({@code add.sql}, with {@link #payload}; many as a batch,
	 * {@code add_batch.sql}, with {@link #unstamped}), and a batch of adds committed by
	 * this handle ({@code add_batch.sql}, with {@link #stamp}).
	 * @return the channel, or {@code null} to notify nobody
	 */
	String channel();

	/**
	 * The payload of the notice of an add in the caller's transaction, which this handle
	 * hears too: its consumers learn of the add only at the commit.
	 * @param dueEpochMillis when the item is ready; 0 for now
	 * @return the payload
	 */
	String payload(long dueEpochMillis);

	/**
	 * What follows the due time in the payload of a notice this handle sends in its own
	 * transaction ({@code add_batch.sql}), which it does not hear: it signals its own
	 * consumers after the commit.
	 * @return the rest of the payload ({@link Notices#stamp}), or {@code null} when
	 * {@link #channel()} is
	 */
	String stamp();

	/**
	 * What follows the due time in the payload of the notice of a batch of adds in the
	 * caller's transaction ({@code add_batch.sql}), which this handle hears too, as it
	 * hears {@link #payload}'s.
	 * @return the rest of the payload ({@link Notices#unstamped}), or {@code null} when
	 * {@link #channel()} is
	 */
	String unstamped();

	/**
	 * A consumer of this handle is about to look for work: the handle hears the others'
	 * notices from then on (the first call subscribes; a notice sent before the
	 * {@code LISTEN} takes effect is made up for by a look). A handle whose consumers
	 * never look, one that only adds, never listens: PostgreSQL wakes every backend that
	 * listens in the database for each notifying commit there, and that backend reads the
	 * notices in a transaction of its own, whatever its channels, so listening costs one
	 * commit per add in the whole database. Never blocks on the database.
	 */
	void consuming();

	/**
	 * Stops hearing: the handle is shut down and waits for nothing any more. Returns once
	 * the handle's {@code LISTEN} work has ended, so that a pool closed right after is
	 * not in use; more calls do nothing.
	 */
	void stopListening();

	/** Stops hearing and sending: the handle is done. */
	void close();

	/**
	 * Listens on the JVM's shared {@code LISTEN} connection for the database once a
	 * consumer of the handle looks for work ({@link #consuming()}), and sends this
	 * handle's notices through a {@link NoticeSender}.
	 * @param key what identifies the database (the listen-connection source)
	 * @param connections opens the {@code LISTEN} connection
	 * @param senders where notices are sent from (auto-commit connections)
	 * @param table the table
	 * @param queue the queue's name
	 * @param self the handle's id (the lease holder's), which stamps the notices it sends
	 * after its own commits so that it does not hear them
	 * @param what names the queue in log lines
	 * @param signal hears the notices
	 * @return the handle's notices
	 */
	static QueueNotices listening(Object key, Supplier<Connection> connections, DataSource senders, String table,
			String queue, String self, String what, ReadySignal signal) {
		String channel = Notices.channel(table);
		NoticeSender sender = new NoticeSender(senders, channel, queue, self, what);
		Notices notices = Notices.acquire(key, connections);
		Notices.Listener listener = new Notices.Listener() {

			@Override
			public void notice(long dueEpochMillis) {
				signal.queued(dueEpochMillis);
			}

			@Override
			public void missedNotices() {
				signal.signal();
			}

		};
		return new QueueNotices() {

			@Override
			public void queued(long dueEpochMillis) {
				sender.send(dueEpochMillis);
			}

			@Override
			public String channel() {
				return channel;
			}

			@Override
			public String payload(long dueEpochMillis) {
				return Notices.payload(queue, dueEpochMillis);
			}

			@Override
			public String stamp() {
				return Notices.stamp(queue, self);
			}

			@Override
			public String unstamped() {
				return Notices.unstamped(queue);
			}

			/**
			 * Whether the handle subscribed or stopped: set once, under the lock, so that
			 * a consumer's look reads it without taking the lock.
			 */
			private volatile boolean settled;

			/** The subscription, once a consumer looked; guarded by {@code this}. */
			private Notices.Subscription subscription;

			/** Set by the first {@link #stopListening()}; guarded by {@code this}. */
			private boolean stopped;

			@Override
			public void consuming() {
				if (!this.settled) {
					synchronized (this) {
						if (!this.stopped && this.subscription == null) {
							this.subscription = notices.subscribe(channel, queue, self, listener);
						}
						this.settled = true;
					}
				}
			}

			@Override
			public void stopListening() {
				Notices.Subscription last;
				synchronized (this) {
					if (this.stopped) {
						return;
					}
					this.stopped = true;
					this.settled = true;
					last = this.subscription;
				}
				try {
					if (last != null) {
						last.close();
					}
				}
				finally {
					notices.release();
				}
			}

			@Override
			public void close() {
				try {
					sender.close();
				}
				finally {
					stopListening();
				}
			}

		};
	}

}
