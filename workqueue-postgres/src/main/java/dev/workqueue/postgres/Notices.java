package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import dev.workqueue.store.SharedResource;
import dev.workqueue.time.Clock;

/**
 * The one {@code LISTEN} connection of this JVM for one database, shared by the queues
 * that listen there: {@link #acquire} hands out one instance per key (the builder's
 * listen-connection source), counting references, and the last {@link #release()} closes
 * its connection. A daemon thread, {@value #THREAD_NAME}, owns the connection: it issues
 * {@code LISTEN} and {@code UNLISTEN} as subscriptions come and go (one channel per
 * table, {@link #channel(String)}), blocks in {@link PGConnection#getNotifications(int)}
 * for at most {@value #WAIT_MILLIS} ms at a time (without pgjdbc's extra millisecond
 * after each notice: {@link TrailingNoticeWait}), and hands each notice to the
 * subscribers of its channel and queue (the payload, {@link #payload(String, long)},
 * names the queue), but not to the handle that sent it: a notice a handle sends after its
 * own commit ({@link #payload(String, long, String)}) is stamped with the handle's id,
 * and that handle woke its own consumers when it committed. The connection shows as
 * {@value #APPLICATION_NAME} in {@code pg_stat_activity}.
 * <p>
 * When the connection breaks (the server restarts, an operator terminates it, or a quiet
 * connection fails its periodic check), the thread opens a new one with exponential
 * backoff ({@value #MIN_BACKOFF_MILLIS} ms doubling to {@value #MAX_BACKOFF_MILLIS} ms),
 * logs the outage once, and after listening again tells every subscriber
 * {@link Listener#missedNotices()}: notices sent meanwhile are lost, so each handle looks
 * for work once. A subscriber also hears {@code missedNotices()} when its channel's
 * {@code LISTEN} takes effect, as notices sent between its subscription and that moment
 * were not heard; one that subscribes to a channel already listened to hears everything
 * from then on.
 * <p>
 * <b>Concurrency.</b> The static registry ({@link SharedResource}) counts the references
 * under its own lock. An instance's {@code lock} guards its subscribers, the set of
 * channels listened to on the current connection, and the writes of {@code closed}
 * (volatile: the thread's loop reads it without the lock). The thread alone runs SQL on
 * the connection: pgjdbc holds the connection's own lock for as long as
 * {@code getNotifications} waits, so a {@code LISTEN} from a subscribing thread would
 * wait as long anyway. Subscribing therefore only records the wish; the thread applies it
 * within one wait. Listeners are called on the thread, outside the lock.
 */
final class Notices {

	/** The listener thread's name. */
	static final String THREAD_NAME = "workqueue-postgres-listener";

	/** The {@code application_name} of the connection, to find it among others. */
	static final String APPLICATION_NAME = "workqueue-postgres-listener";

	/**
	 * How long one wait for notices lasts: the longest a new channel waits for its
	 * {@code LISTEN}, and a release for the connection to close.
	 */
	static final int WAIT_MILLIS = 200;

	/** The longest the last release waits for the listener thread to end. */
	static final long END_MILLIS = 10_000;

	static final long MIN_BACKOFF_MILLIS = 100;

	static final long MAX_BACKOFF_MILLIS = 5_000;

	/** A connection quiet for this long is checked, to find one that broke silently. */
	private static final long CHECK_AFTER_NANOS = 30_000_000_000L;

	private static final int CHECK_TIMEOUT_SECONDS = 5;

	/** Channel names are identifiers: at most 63 bytes (NAMEDATALEN - 1). */
	static final int MAX_CHANNEL_BYTES = 63;

	private static final String CHANNEL_PREFIX = "workqueue:";

	/**
	 * Queue names longer than this travel as a digest, so that a payload stays far below
	 * {@code NOTIFY}'s 8000 bytes whatever the name.
	 */
	static final int MAX_QUEUE_CHARS_IN_PAYLOAD = 200;

	private static final System.Logger logger = System.getLogger(Notices.class.getName());

	/** The shared instances by key. */
	private static final SharedResource<Object, Notices> registry = new SharedResource<>(Notices::stop);

	private final Supplier<Connection> connections;

	private final Clock clock = Clock.system();

	private final ReentrantLock lock = new ReentrantLock();

	/** Rung by the last {@link #release()}, to cut a backoff short. */
	private final Alarm closing = new Alarm(this.clock);

	/** Channel, then queue key, to its subscribers; guarded by {@code lock}. */
	private final Map<String, Map<String, List<Subscriber>>> subscribers = new HashMap<>();

	/**
	 * The channels listened to on the current connection; guarded by {@code lock},
	 * written by the thread only.
	 */
	private final Set<String> listening = new HashSet<>();

	/** Set by the last release; written under {@code lock}. */
	private volatile boolean closed;

	/** The listener thread: it alone uses the connection. */
	private final Thread thread;

	/** The listener thread's connection; touched by that thread only. */
	private Connection connection;

	/** When {@code connection} last answered; touched by the listener thread only. */
	private long lastTrafficNanos;

	/** The backend's process id of {@code connection}; 0 without one. */
	private volatile int backendPid;

	private Notices(Supplier<Connection> connections) {
		this.connections = connections;
		this.thread = new Thread(this::listen, THREAD_NAME);
		this.thread.setDaemon(true);
	}

	/**
	 * Returns the shared instance for {@code key}, opening its connection through
	 * {@code connections} on first use; each call must be paired with {@link #release()}.
	 * The connection is opened on the listener thread: an unreachable database does not
	 * fail this call, the thread keeps trying.
	 * @param key what identifies the database (the builder's listen-connection source)
	 * @param connections opens a new connection outside any pool
	 * @return the shared instance
	 */
	static Notices acquire(Object key, Supplier<Connection> connections) {
		Objects.requireNonNull(key, "key");
		Objects.requireNonNull(connections, "connections");
		return registry.acquire(key, (first) -> {
			Notices notices = new Notices(connections);
			notices.thread.start();
			return notices;
		});
	}

	/**
	 * Subscribes a queue's handle to the notices of its queue, but for those it sent
	 * itself.
	 * @param channel the table's channel, {@link #channel(String)}
	 * @param queue the queue's name
	 * @param self the handle's id: notices stamped with it are not heard
	 * @param listener what hears them
	 * @return the subscription, to close when the handle shuts down
	 */
	Subscription subscribe(String channel, String queue, String self, Listener listener) {
		Subscriber subscriber = new Subscriber(Objects.requireNonNull(channel, "channel"),
				queueKey(Objects.requireNonNull(queue, "queue")), Objects.requireNonNull(self, "self"),
				Objects.requireNonNull(listener, "listener"));
		this.lock.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("Notices released: acquire them again");
			}
			this.subscribers.computeIfAbsent(channel, (c) -> new HashMap<>())
				.computeIfAbsent(subscriber.queueKey, (q) -> new ArrayList<>())
				.add(subscriber);
			// Already listened to on this connection: it hears every later notice. Else
			// the thread listens within one wait, then tells it to look again.
			subscriber.live = this.listening.contains(channel);
		}
		finally {
			this.lock.unlock();
		}
		return subscriber;
	}

	/**
	 * Gives back one {@link #acquire}; the last one ends the listener thread, which
	 * closes the connection, and returns once it has (or after {@value #END_MILLIS} ms,
	 * if the connection hangs), so that a pool closed right after is not in use.
	 */
	void release() {
		registry.release(this);
	}

	/** Ends the listener thread once the last reference is given back. */
	private void stop() {
		this.lock.lock();
		try {
			this.closed = true;
		}
		finally {
			this.lock.unlock();
		}
		this.closing.ring();
		if (Thread.currentThread() != this.thread) {
			try {
				this.thread.join(END_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * The channel of a table's queues: at most 63 bytes, distinct for distinct tables,
	 * the same in every JVM. PostgreSQL folds unquoted names to lower case, so
	 * {@code Items} and {@code items} share a channel as they share a table; a table
	 * whose name is too long for a channel is told apart by a digest of its name.
	 * @param table the table, as the builder has it
	 * @return the channel name
	 */
	static String channel(String table) {
		String name = new TableName(table).folded();
		String channel = CHANNEL_PREFIX + name;
		if (channel.length() <= MAX_CHANNEL_BYTES) {
			return channel;
		}
		// '~' cannot occur in a table's name, so a shortened channel never equals a
		// whole one; 16 hex digits keep two shortened ones apart.
		String digest = digest(name).substring(0, 16);
		return channel.substring(0, MAX_CHANNEL_BYTES - 1 - digest.length()) + "~" + digest;
	}

	/**
	 * The payload of a notice every subscriber of the queue hears, its sender's too (an
	 * add in the caller's transaction, which its handle cannot signal before the commit):
	 * <code>&lt;due&gt;:&lt;queue&gt;</code>. The due time comes first, so the queue's
	 * name may hold any character; a very long name travels as a digest.
	 * @param queue the queue's name
	 * @param dueEpochMillis when the item that caused it becomes ready; 0 for now
	 * @return the payload
	 */
	static String payload(String queue, long dueEpochMillis) {
		return Math.max(0, dueEpochMillis) + unstamped(queue);
	}

	/**
	 * What follows the due time in a payload of {@link #payload(String, long)}:
	 * <code>:&lt;queue&gt;</code>, for a statement that puts the due time it computes in
	 * front.
	 * @param queue the queue's name
	 * @return the rest of the payload
	 */
	static String unstamped(String queue) {
		return ":" + queueKey(queue);
	}

	/**
	 * The payload of a notice its sender does not hear (one sent after the sender's own
	 * commit, which woke the sender's consumers already):
	 * <code>&lt;due&gt;/&lt;sender&gt;:&lt;queue&gt;</code>.
	 * @param queue the queue's name
	 * @param dueEpochMillis when the item that caused it becomes ready; 0 for now
	 * @param sender the sending handle's id, which holds neither {@code '/'} nor
	 * {@code ':'}
	 * @return the payload
	 */
	static String payload(String queue, long dueEpochMillis, String sender) {
		return Math.max(0, dueEpochMillis) + stamp(queue, sender);
	}

	/**
	 * What follows the due time in a payload of {@link #payload(String, long, String)}:
	 * <code>/&lt;sender&gt;:&lt;queue&gt;</code>, for a statement that puts the due time
	 * it computes in front.
	 * @param queue the queue's name
	 * @param sender the sending handle's id, which holds neither {@code '/'} nor
	 * {@code ':'}
	 * @return the rest of the payload
	 */
	static String stamp(String queue, String sender) {
		return "/" + sender + ":" + queueKey(queue);
	}

	/**
	 * Reads a payload of {@link #payload(String, long)} or
	 * {@link #payload(String, long, String)}.
	 * @param payload the payload
	 * @return the notice, or {@code null} if the payload is not one of ours
	 */
	static Notice parse(String payload) {
		int colon = (payload != null) ? payload.indexOf(':') : -1;
		if (colon <= 0) {
			return null;
		}
		int slash = payload.lastIndexOf('/', colon);
		int dueEnd = (slash >= 0) ? slash : colon;
		try {
			long due = Long.parseLong(payload, 0, dueEnd, 10);
			String sender = (slash >= 0) ? payload.substring(slash + 1, colon) : null;
			return (due >= 0) ? new Notice(payload.substring(colon + 1), due, sender) : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/** How a queue's name appears in payloads. */
	static String queueKey(String queue) {
		return (queue.length() <= MAX_QUEUE_CHARS_IN_PAYLOAD) ? queue : "#" + digest(queue);
	}

	private static String digest(String text) {
		try {
			MessageDigest sha = MessageDigest.getInstance("SHA-256");
			return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every JVM has SHA-256", ex);
		}
	}

	/**
	 * The shared instance for {@code key}, or {@code null} if nobody holds one; for
	 * tests.
	 * @param key the key it was acquired with
	 * @return the instance, or {@code null}
	 */
	static Notices shared(Object key) {
		return registry.peek(key);
	}

	/** The backend process id of the current connection, 0 without one; for tests. */
	int backendPid() {
		return this.backendPid;
	}

	/** The channels listened to on the current connection; for tests. */
	Set<String> listening() {
		this.lock.lock();
		try {
			return Set.copyOf(this.listening);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The listener thread's loop: connect, apply subscriptions, wait, dispatch. */
	private void listen() {
		long backoffMillis = MIN_BACKOFF_MILLIS;
		boolean failing = false;
		while (!this.closed) {
			try {
				if (this.connection == null) {
					open();
					if (failing) {
						logger.log(Level.INFO, "Listening for queue notices again");
						failing = false;
					}
					backoffMillis = MIN_BACKOFF_MILLIS;
				}
				applySubscriptions();
				receive();
			}
			catch (SQLException | RuntimeException ex) {
				// One line per outage: the queues poll meanwhile, and say so themselves.
				if (!failing) {
					logger.log(Level.WARNING, "The LISTEN connection for queue notices failed; "
							+ "reconnecting with backoff, queues poll meanwhile", ex);
					failing = true;
				}
				else {
					logger.log(Level.DEBUG, "The LISTEN connection is still failing", ex);
				}
				drop();
				backOff(backoffMillis);
				backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF_MILLIS);
			}
		}
		close();
	}

	private void open() throws SQLException {
		Connection opened = this.connections.get();
		if (opened == null) {
			throw new IllegalStateException("The listen-connection source returned null");
		}
		this.connection = opened;
		// LISTEN takes effect at commit, and pgjdbc reads notices only between
		// transactions: the connection must be in auto-commit.
		opened.setAutoCommit(true);
		PGConnection pg = opened.unwrap(PGConnection.class);
		TrailingNoticeWait.remove(opened);
		try (Statement statement = opened.createStatement()) {
			statement.execute("SET application_name = '" + APPLICATION_NAME + "'");
		}
		this.backendPid = pg.getBackendPID();
		this.lastTrafficNanos = this.clock.nanoTime();
	}

	/**
	 * Listens to the channels that gained subscribers and stops listening to those that
	 * lost them, then tells the subscribers of newly listened channels to look again.
	 */
	private void applySubscriptions() throws SQLException {
		Set<String> toListen;
		Set<String> toUnlisten;
		this.lock.lock();
		try {
			toListen = new HashSet<>(this.subscribers.keySet());
			toListen.removeAll(this.listening);
			toUnlisten = new HashSet<>(this.listening);
			toUnlisten.removeAll(this.subscribers.keySet());
		}
		finally {
			this.lock.unlock();
		}
		for (String channel : toUnlisten) {
			execute("UNLISTEN " + quote(channel));
			this.lock.lock();
			try {
				this.listening.remove(channel);
				// Subscribed again while the UNLISTEN ran, and marked live: not any more.
				forEachSubscriber(channel, (subscriber) -> subscriber.live = false);
			}
			finally {
				this.lock.unlock();
			}
		}
		for (String channel : toListen) {
			execute("LISTEN " + quote(channel));
			List<Subscriber> woken = new ArrayList<>();
			this.lock.lock();
			try {
				this.listening.add(channel);
				forEachSubscriber(channel, (subscriber) -> {
					if (!subscriber.live) {
						subscriber.live = true;
						woken.add(subscriber);
					}
				});
			}
			finally {
				this.lock.unlock();
			}
			woken.forEach((subscriber) -> tell(subscriber.listener::missedNotices));
		}
	}

	/** Waits once for notices and hands them out. */
	private void receive() throws SQLException {
		PGNotification[] received = this.connection.unwrap(PGConnection.class).getNotifications(WAIT_MILLIS);
		long nowNanos = this.clock.nanoTime();
		if (received == null || received.length == 0) {
			if (nowNanos - this.lastTrafficNanos > CHECK_AFTER_NANOS) {
				if (!this.connection.isValid(CHECK_TIMEOUT_SECONDS)) {
					throw new SQLException("The LISTEN connection does not answer", "08006");
				}
				this.lastTrafficNanos = nowNanos;
			}
			return;
		}
		this.lastTrafficNanos = nowNanos;
		// Several notices for one subscriber in one batch make one call, with the
		// earliest due time (0, "ready now", is the earliest).
		Map<Subscriber, Long> due = new IdentityHashMap<>();
		this.lock.lock();
		try {
			for (PGNotification notification : received) {
				Notice notice = parse(notification.getParameter());
				Map<String, List<Subscriber>> queues = this.subscribers.get(notification.getName());
				List<Subscriber> hearing = (notice != null && queues != null) ? queues.get(notice.queue()) : null;
				if (hearing != null) {
					for (Subscriber subscriber : hearing) {
						// Its sender signalled its own consumers after the commit.
						if (!subscriber.self.equals(notice.sender())) {
							due.merge(subscriber, notice.dueEpochMillis(), Math::min);
						}
					}
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		due.forEach((subscriber, at) -> tell(() -> subscriber.listener.notice(at)));
	}

	private void execute(String sql) throws SQLException {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute(sql);
		}
	}

	/** Forgets a broken connection; every subscriber waits for the next one. */
	private void drop() {
		Connection broken = this.connection;
		this.connection = null;
		this.backendPid = 0;
		this.lock.lock();
		try {
			this.listening.clear();
			this.subscribers.keySet().forEach((channel) -> forEachSubscriber(channel, (each) -> each.live = false));
		}
		finally {
			this.lock.unlock();
		}
		if (broken != null) {
			UnpooledConnections.discard(broken);
		}
	}

	/**
	 * Closes the connection after the last release, leaving a pooled one clean; one that
	 * cannot be cleaned is discarded.
	 */
	private void close() {
		Connection last = this.connection;
		if (last == null) {
			return;
		}
		try {
			execute("UNLISTEN *");
			execute("RESET application_name");
			TrailingNoticeWait.restore(last);
			last.close();
		}
		catch (SQLException ex) {
			logger.log(Level.DEBUG, "Cleaning up the LISTEN connection failed", ex);
			UnpooledConnections.discard(last);
		}
		finally {
			this.connection = null;
			this.backendPid = 0;
		}
	}

	private void backOff(long millis) {
		try {
			this.closing.sleepUntil(this.clock.nanoTime() + millis * 1_000_000L);
		}
		catch (InterruptedException ex) {
			// Nobody interrupts this thread but a JVM going down: stop.
			Thread.currentThread().interrupt();
			stop();
		}
	}

	/** Runs {@code action} for every subscriber of {@code channel}; under the lock. */
	private void forEachSubscriber(String channel, Consumer<Subscriber> action) {
		Map<String, List<Subscriber>> queues = this.subscribers.get(channel);
		if (queues != null) {
			queues.values().forEach((list) -> list.forEach(action));
		}
	}

	/** Tells a listener, on this thread: its failure is logged, and ends nothing. */
	private static void tell(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.log(Level.ERROR, "A queue's notice listener failed", ex);
		}
	}

	private static String quote(String identifier) {
		return '"' + identifier.replace("\"", "\"\"") + '"';
	}

	/**
	 * A parsed payload.
	 *
	 * @param queue the queue's name as {@link #queueKey} has it
	 * @param dueEpochMillis when the item becomes ready; 0 for now
	 * @param sender the id of the handle that does not hear it, or {@code null} if every
	 * subscriber does
	 */
	record Notice(String queue, long dueEpochMillis, String sender) {
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

	/** One subscription; identity equality on purpose. */
	private final class Subscriber implements Subscription {

		private final String channel;

		private final String queueKey;

		/** The handle's id, which stamps the notices it does not hear. */
		private final String self;

		private final Listener listener;

		/** Whether its channel is listened to on the current connection; under lock. */
		private boolean live;

		Subscriber(String channel, String queueKey, String self, Listener listener) {
			this.channel = channel;
			this.queueKey = queueKey;
			this.self = self;
			this.listener = listener;
		}

		@Override
		public void close() {
			ReentrantLock lock = Notices.this.lock;
			lock.lock();
			try {
				Map<String, List<Subscriber>> queues = Notices.this.subscribers.get(this.channel);
				List<Subscriber> list = (queues != null) ? queues.get(this.queueKey) : null;
				if (list != null && list.remove(this)) {
					if (list.isEmpty()) {
						queues.remove(this.queueKey);
					}
					if (queues.isEmpty()) {
						// The thread stops listening to the channel within one wait.
						Notices.this.subscribers.remove(this.channel);
					}
				}
			}
			finally {
				lock.unlock();
			}
		}

	}

}
