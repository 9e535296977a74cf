package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;

import dev.workqueue.store.ReadySignal;
import dev.workqueue.time.Clock;

/**
 * The one place where the consumers of every queue on a standalone Redis client wait for
 * a wake-up: a connection of its own that waits on the wake lists of the queues that have
 * a waiting consumer, all in one {@code BLPOP} at a time (no thread blocks in it: see
 * <b>Hops</b>). Redis hands each element of a wake list to one blocked client, so an item
 * that becomes ready wakes one consumer of all the instances, not one per instance; the
 * scripts keep the list armed while items are left after a lease
 * ({@code includes/notify.lua}), so the next waiting consumer, wherever it is, looks
 * next.
 * <p>
 * <b>Hops.</b> An answer is taken in hand where it arrives, on the connection's event
 * loop: the next {@code BLPOP} goes out at once, and the wake-up goes straight to a
 * waiting consumer's signal, so a remote add reaches a waiting consumer with the thread
 * hop Redisson's {@code take} has (event loop, then consumer), not through this watch's
 * thread as well. The thread only sends a first wait (a consumer starts waiting while
 * none is under way), connects, and waits out failures.
 * <p>
 * <b>Cost.</b> One connection and one thread per client, however many queues; a queue
 * without a waiting consumer is not waited on. While consumers wait and nothing happens,
 * one {@code BLPOP} per {@value #BLOCK_SECONDS} seconds for all the queues of the client.
 * <p>
 * <b>Which queues.</b> A {@code BLPOP} waits on the queues that had a waiting consumer
 * when it was sent. A queue whose first consumer starts waiting while one is under way
 * without it gets it restarted: an element pushed to the control list that the
 * {@code BLPOP} also waits on (named after its first wake list, so in the same key space
 * a user's permissions cover; it expires should it outlive the wait). An element popped
 * for a queue whose consumers have all left meanwhile is pushed back, for another
 * instance's consumer, and the queue is not waited on until a consumer waits again.
 * <p>
 * Not for Redis Cluster, where one command cannot wait on keys of several slots: there
 * the consumers wait for the queues' pub/sub notices.
 * <p>
 * Thread-safe: {@code lock} guards the registrations, the wait under way and a failure
 * for the thread. Lock order: a {@link ReadySignal}'s lock, then this one (a first waiter
 * calls {@link #wanted} under its signal's lock); this one is never held while a signal
 * is signalled, nor while the thread connects or logs.
 */
final class WakeWatch {

	private static final System.Logger logger = System.getLogger(WakeWatch.class.getName());

	/** How long one {@code BLPOP} waits at most: as long as the default heartbeat. */
	static final long BLOCK_SECONDS = 10;

	/**
	 * The command timeout of the watch's connection: a {@code BLPOP}'s wait, and as much
	 * again for its answer.
	 */
	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(2 * BLOCK_SECONDS);

	/** How long a control element outlives a wait that missed it. */
	private static final long CONTROL_TTL_MILLIS = 60_000;

	/** How long a wake list lives after a wake-up was pushed back to it. */
	private static final long PUSHED_BACK_TTL_MILLIS = 2 * BLOCK_SECONDS * 1000;

	/** After a failure, how long the thread waits before it tries again. */
	private static final long BACKOFF_NANOS = 1_000_000_000L;

	private final RedisClient client;

	/**
	 * The client's command connection, where a control element and a wake-up that cannot
	 * go back through this watch's connection are pushed: the one open, {@code null} once
	 * the link closed it (never opened here, as on the event loop).
	 */
	private final Supplier<StatefulConnection<String, String>> commands;

	private final Clock clock = Clock.system();

	/** Tells this client's control lists apart from other clients'. */
	private final String id = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	/** The handles of each queue, by wake list; in registration order. */
	private final Map<String, List<Watched>> watched = new LinkedHashMap<>();

	private StatefulRedisConnection<String, String> connection;

	private Thread thread;

	private boolean closed;

	/** Whether the user may not {@code BLPOP}: no handle is watched any more. */
	private boolean refused;

	/** The wake lists of the wait under way, {@code null} when none is. */
	private List<String> waitingOn;

	/** The control list of the wait under way. */
	private String control;

	/** Whether that wait was asked to restart. */
	private boolean poked;

	/** The wait under way, {@code null} when none is. */
	private CompletableFuture<KeyValue<String, String>> sent;

	/** A failure of the last wait, for the thread to handle; {@code null} if none. */
	private RuntimeException failure;

	/**
	 * The kind of the failure last logged, until a wait answers again; the thread and the
	 * event loop write it.
	 */
	private volatile String failing;

	WakeWatch(RedisClient client, Supplier<StatefulConnection<String, String>> commands) {
		this.client = client;
		this.commands = commands;
	}

	/**
	 * Waits on a queue's wake list for a handle, from now until {@link #unwatch}: a
	 * wake-up popped there signals {@code signal} when one of its consumers waits. The
	 * signal then tells this watch, through {@code handOff}, when its first consumer
	 * starts waiting.
	 * @param wakeKey the queue's wake list
	 * @param signal the handle's signal
	 * @param handOff the handle's wake-ups
	 */
	void watch(String wakeKey, ReadySignal signal, WakeHandOff handOff) {
		this.lock.lock();
		try {
			if (this.refused) {
				return;
			}
			this.watched.computeIfAbsent(wakeKey, (key) -> new ArrayList<>()).add(new Watched(signal, handOff));
			if (this.thread == null && !this.closed) {
				this.thread = new Thread(this::loop, "workqueue-redis-wake");
				this.thread.setDaemon(true);
				this.thread.start();
			}
		}
		finally {
			this.lock.unlock();
		}
		handOff.handOff(() -> wanted(wakeKey));
	}

	/**
	 * Stops waiting for a handle.
	 * @param wakeKey the queue's wake list
	 * @param signal the handle's signal
	 * @param handOff the handle's wake-ups
	 */
	void unwatch(String wakeKey, ReadySignal signal, WakeHandOff handOff) {
		this.lock.lock();
		try {
			List<Watched> signals = this.watched.get(wakeKey);
			if (signals != null && signals.remove(new Watched(signal, handOff)) && signals.isEmpty()) {
				this.watched.remove(wakeKey);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A consumer of the queue started waiting: the wait under way restarts if it does not
	 * include the queue's list; if none is under way, the thread is woken to send one.
	 * Does not block.
	 */
	private void wanted(String wakeKey) {
		String restart = null;
		this.lock.lock();
		try {
			if (this.waitingOn == null) {
				this.changed.signalAll();
			}
			else if (!this.waitingOn.contains(wakeKey) && !this.poked) {
				this.poked = true;
				restart = this.control;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (restart != null) {
			// Not on this watch's connection, which the wait under way holds.
			pushOnCommands(restart, CONTROL_TTL_MILLIS);
		}
	}

	/** Ends the thread and closes the connection: the client's last queue is gone. */
	void close() {
		StatefulRedisConnection<String, String> open;
		this.lock.lock();
		try {
			this.closed = true;
			this.watched.clear();
			open = this.connection;
			this.connection = null;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		if (open != null) {
			// Ends the wait under way, if any, with a failure the thread ignores.
			open.closeAsync();
		}
	}

	/**
	 * The thread: sends a wait when one is wanted and none is under way (a first waiting
	 * consumer, or the wait before ended without sending the next), connects, and handles
	 * failures. Waits that answer are followed by the next from the answer itself.
	 */
	private void loop() {
		while (true) {
			RuntimeException failed;
			boolean connect;
			CompletableFuture<KeyValue<String, String>> next = null;
			// The lists wanted, read once: a consumer may stop waiting at any time (its
			// count is its signal's, not guarded here), so a second read could find none.
			List<String> keys = List.of();
			this.lock.lock();
			try {
				while (!this.closed && this.failure == null && (this.sent != null || (keys = wantedKeys()).isEmpty())) {
					this.changed.awaitUninterruptibly();
				}
				if (this.closed) {
					this.thread = null;
					return;
				}
				failed = this.failure;
				this.failure = null;
				connect = failed == null && this.connection == null;
				if (failed == null && !connect) {
					try {
						next = send(keys);
					}
					catch (RuntimeException ex) {
						failed = ex;
					}
				}
			}
			finally {
				this.lock.unlock();
			}
			if (connect) {
				// Then round again: a consumer may have stopped waiting meanwhile.
				failed = connect();
			}
			if (failed != null) {
				failed(failed);
			}
			else if (next != null) {
				whenAnswered(next);
			}
		}
	}

	/**
	 * Opens the watch's connection, without the lock: connecting blocks up to the connect
	 * timeout, and a first waiter asks for a wait ({@link #wanted}) holding its signal's
	 * lock, which everyone signalling that handle then waits for. A connection opened
	 * while the watch closed is closed.
	 * @return the failure to connect, or {@code null}
	 */
	private RuntimeException connect() {
		StatefulRedisConnection<String, String> opened;
		try {
			opened = this.client.connect();
			opened.setTimeout(CONNECTION_TIMEOUT);
		}
		catch (RuntimeException ex) {
			return ex;
		}
		boolean installed;
		this.lock.lock();
		try {
			installed = !this.closed;
			if (installed) {
				this.connection = opened;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (!installed) {
			opened.closeAsync();
		}
		return null;
	}

	/**
	 * Sends a wait on {@code keys} (not empty) and this client's control list. Called
	 * under the lock, with a connection; the caller registers {@link #answered} once it
	 * let go of the lock (an answer already in would run it at once, on the caller's
	 * thread).
	 */
	private CompletableFuture<KeyValue<String, String>> send(List<String> keys) {
		this.control = keys.get(0) + ":" + this.id;
		String[] all = new String[keys.size() + 1];
		keys.toArray(all);
		all[keys.size()] = this.control;
		this.waitingOn = keys;
		this.poked = false;
		this.sent = RedisLink.dispatch(this.connection, QueueCommand.blpop(BLOCK_SECONDS, all));
		return this.sent;
	}

	private void whenAnswered(CompletableFuture<KeyValue<String, String>> wait) {
		wait.whenComplete((reply, ex) -> answered(wait));
	}

	/** The wake lists with a waiting consumer. Called under the lock. */
	private List<String> wantedKeys() {
		List<String> keys = new ArrayList<>();
		this.watched.forEach((key, signals) -> {
			if (signals.stream().anyMatch((handle) -> handle.signal().waiting() > 0)) {
				keys.add(key);
			}
		});
		return keys;
	}

	/**
	 * A wait answered, on the connection's event loop: the next wait is sent at once, if
	 * one is wanted, then the wake-up popped goes to a waiting consumer, right here (a
	 * signal never blocks), so that it wakes with one thread hop, not two. A wake-up no
	 * local consumer takes goes back to its list, for another instance's consumer. A
	 * failure goes to the thread, which logs it and waits before it tries again.
	 */
	private void answered(CompletableFuture<KeyValue<String, String>> wait) {
		String wakeKey;
		Watched target = null;
		boolean recovered;
		boolean pushBack = false;
		CompletableFuture<KeyValue<String, String>> next = null;
		this.lock.lock();
		try {
			if (wait != this.sent) {
				return;
			}
			this.sent = null;
			this.waitingOn = null;
			KeyValue<String, String> popped;
			try {
				popped = RedisLink.answer(wait, Duration.ZERO);
			}
			catch (RuntimeException ex) {
				if (!this.closed) {
					this.failure = ex;
					this.changed.signalAll();
				}
				return;
			}
			recovered = recovered();
			wakeKey = (popped != null && popped.hasValue() && !popped.getKey().equals(this.control)) ? popped.getKey()
					: null;
			if (this.closed) {
				// Popped while the watch closed: another instance's consumer takes it.
				pushBack = wakeKey != null;
			}
			else {
				target = (wakeKey != null) ? target(wakeKey) : null;
				next = sendNext(wakeKey, target);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (recovered) {
			logger.log(Level.INFO, "Waiting for the queues' wake-ups works again");
		}
		// Outside the lock: the consumer seen waiting may have left since (its deadline
		// passed); a permit kept for nobody would leave another instance's waiting
		// consumer asleep while an item is ready. Not on this watch's connection, where
		// the next wait is queued already.
		if (target != null && !target.signal().signalIfWaiting()) {
			pushBack = true;
		}
		if (pushBack) {
			pushBackOnCommands(wakeKey);
		}
		if (next != null) {
			whenAnswered(next);
		}
	}

	/**
	 * After an answer: a wake-up without a local consumer goes back to its list, then the
	 * next wait goes out if one is wanted. Called under the lock, on an open watch.
	 * @param wakeKey the wake list of the wake-up popped, or {@code null} for none
	 * @param target the handle it goes to, {@code null} for none
	 * @return the next wait, or {@code null} if none was sent
	 */
	private CompletableFuture<KeyValue<String, String>> sendNext(String wakeKey, Watched target) {
		if (wakeKey != null && target == null) {
			// Back for another instance's consumer, before the next wait on this
			// connection (which pops it at once should a consumer of the queue start
			// waiting meanwhile); through the command connection should this one throw
			// or fail it. The queue may be gone (its keys deleted once its handles shut
			// down): the list expires rather than stays for ever; while items are ready,
			// each tick arms it again, so an expired wake-up costs a heartbeat.
			try {
				push(this.connection, wakeKey, PUSHED_BACK_TTL_MILLIS).whenComplete((pushed, ex) -> {
					if (ex != null) {
						pushBackOnCommands(wakeKey);
					}
				});
			}
			catch (RuntimeException ex) {
				pushBackOnCommands(wakeKey);
			}
		}
		try {
			List<String> keys = wantedKeys();
			if (!keys.isEmpty()) {
				return send(keys);
			}
			// The thread sends the next wait when a consumer starts waiting.
			this.changed.signalAll();
		}
		catch (RuntimeException ex) {
			// Not sent: the thread tries again after a pause.
			this.sent = null;
			this.waitingOn = null;
			this.failure = ex;
			this.changed.signalAll();
		}
		return null;
	}

	/**
	 * Pushes a wake-up back through the client's command connection, where it cannot go
	 * back through the watch's (closed, failed, or the next wait is queued there
	 * already).
	 */
	private void pushBackOnCommands(String wakeKey) {
		pushOnCommands(wakeKey, PUSHED_BACK_TTL_MILLIS);
	}

	/** Pushes an element through the command connection, unless the link closed it. */
	private void pushOnCommands(String list, long ttlMillis) {
		StatefulConnection<String, String> open = this.commands.get();
		if (open != null) {
			push(open, list, ttlMillis);
		}
	}

	/**
	 * The handle of the queue a wake-up goes to: one with a waiting consumer, or
	 * {@code null} for none (the wake-up then goes back to the queue's list for another
	 * instance's consumer). Handles of one queue on this client take turns: the one
	 * chosen goes to the back. Called under the lock.
	 */
	private Watched target(String wakeKey) {
		List<Watched> signals = this.watched.getOrDefault(wakeKey, List.of());
		for (Watched handle : signals) {
			if (handle.signal().waiting() > 0) {
				if (signals.size() > 1) {
					signals.remove(handle);
					signals.add(handle);
				}
				return handle;
			}
		}
		return null;
	}

	/**
	 * Pushes an element to a list, which expires after {@code ttlMillis}.
	 * @return the push's answer
	 */
	private static CompletableFuture<Long> push(StatefulConnection<String, String> connection, String list,
			long ttlMillis) {
		CompletableFuture<Long> pushed = RedisLink.dispatch(connection, QueueCommand.push(list, "1"));
		RedisLink.dispatch(connection, QueueCommand.expire(list, ttlMillis));
		return pushed;
	}

	/**
	 * Logs a failure once per kind, and waits a little before the next try. A user who
	 * may not {@code BLPOP} the wake lists never will: the handles go back to the pub/sub
	 * notices for good, and the watch waits no more.
	 */
	private void failed(RuntimeException ex) {
		if (this.closed) {
			return;
		}
		Throwable cause = RedisLink.unwrap(ex);
		if (String.valueOf(cause.getMessage()).startsWith("NOPERM")) {
			giveUp(ex);
			return;
		}
		String kind = cause.getClass().getName();
		if (!kind.equals(this.failing)) {
			this.failing = kind;
			logger.log(Level.WARNING, "Waiting for the queues' wake-ups on " + this.client
					+ " failed; consumers look at each heartbeat until it works again", ex);
		}
		this.lock.lock();
		try {
			this.waitingOn = null;
			// Waited out: each first waiter's wanted() signals, which would otherwise
			// retry at the consumers' rate while Redis is unreachable.
			long backoffUntil = this.clock.nanoTime() + BACKOFF_NANOS;
			while (!this.closed && this.clock.nanoTime() < backoffUntil) {
				this.clock.awaitUntil(this.lock, this.changed, backoffUntil);
			}
		}
		catch (InterruptedException interrupted) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void giveUp(RuntimeException ex) {
		List<Watched> signals = new ArrayList<>();
		this.lock.lock();
		try {
			this.refused = true;
			this.waitingOn = null;
			this.watched.values().forEach(signals::addAll);
			this.watched.clear();
		}
		finally {
			this.lock.unlock();
		}
		logger.log(Level.WARNING,
				"The connection's user may not BLPOP the queues' wake lists on " + this.client
						+ ": their consumers wait for pub/sub notices instead, which wake one consumer per instance",
				ex);
		for (Watched handle : signals) {
			handle.handOff().handOff(null);
			// A wake-up may have been under way: the consumers look once.
			handle.signal().signal();
		}
	}

	/**
	 * Whether a wait answered after a failure was logged: the caller logs it once it let
	 * go of the lock (the event loop does not wait for the logger under it).
	 */
	private boolean recovered() {
		if (this.failing == null) {
			return false;
		}
		this.failing = null;
		return true;
	}

	/** A watched handle: its signal, and its wake-ups that this watch switches. */
	private record Watched(ReadySignal signal, WakeHandOff handOff) {

	}

}
