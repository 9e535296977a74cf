package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisException;

import dev.workqueue.time.Clock;

/**
 * One queue's scripts on the shared {@link RedisLink}: adds the two arguments every queue
 * script takes (the time, the channel) and the queue's keys, bounds each call by the
 * command timeout, and names the queue and the server in every failure.
 */
final class QueueScripts {

	private final RedisLink link;

	private final String who;

	private final QueueKeys keys;

	private final QueueLayout layout;

	private final String[] allKeys;

	private final Clock clock;

	private final boolean serverTime;

	private final Duration timeout;

	/** The given clock's anchor ({@link ClockAnchor}), {@code null} until known. */
	private volatile Long offsetMicros;

	/**
	 * Whether a call found the client shut down: every later one fails at once, without
	 * reconnecting or borrowing a link of the client.
	 */
	private volatile boolean clientShutDown;

	/**
	 * Whether the handle is shut down: from then on a send on the handle's link counts
	 * itself in {@link #linkUsers} until its answer, so that the link is given back only
	 * after it (a read racing the release would otherwise meet a closed connection).
	 * Before, no count is needed: the link is given back only once the handle is quiet.
	 */
	private volatile boolean counting;

	/**
	 * The handle's own hold on the link (1) plus the counted sends on it under way; 0
	 * once the link is given back: later calls borrow it for their time.
	 */
	private final AtomicInteger linkUsers = new AtomicInteger(1);

	/** Whether the handle gave its hold up ({@link #release}). */
	private final AtomicBoolean released = new AtomicBoolean();

	QueueScripts(RedisLink link, String name, QueueKeys keys, QueueLayout layout, Clock clock, boolean serverTime,
			Duration timeout) {
		this.link = link;
		this.who = "Queue '" + name + "'";
		this.keys = keys;
		this.layout = layout;
		this.allKeys = keys.all();
		this.clock = clock;
		this.serverTime = serverTime;
		this.timeout = timeout;
	}

	/**
	 * Sends a queue script without waiting.
	 * @param script the script
	 * @param args its arguments after the time and the channel
	 * @return the answer to come; a failure is the client's exception
	 */
	<R> CompletableFuture<R> send(LuaScript script, String... args) {
		return sendAt(now(), script, args);
	}

	/**
	 * Sends a queue script with the time read already (ignored on the server's clock). A
	 * given clock's reading goes to the script anchored on the server's time
	 * ({@link ClockAnchor}): the first script of a clock not anchored yet waits for the
	 * server's time first (at the handle's start, or at its first use if Redis did not
	 * answer then), and fails if that read fails. That wait never happens on the client's
	 * event loop: what is sent from there follows an answered script.
	 * @param nowNanos the clock's reading
	 * @param script the script
	 * @param args its arguments after the time and the channel
	 * @return the answer to come; a failure is the client's exception
	 */
	<R> CompletableFuture<R> sendAt(long nowNanos, LuaScript script, String... args) {
		if (this.clientShutDown) {
			return CompletableFuture.failedFuture(new RedisLink.ClientShutDownException(null));
		}
		try {
			if (!this.counting) {
				return this.link.send(script, this.allKeys, arguments(this.link, nowNanos, args));
			}
			// Counted on the handle's link, or on one borrowed for the call.
			boolean own = useLink();
			RedisLink on = own ? this.link : RedisLink.acquire(this.link.client());
			Runnable done = own ? this::doneWithLink : on::release;
			CompletableFuture<R> answer;
			try {
				answer = on.send(script, this.allKeys, arguments(on, nowNanos, args));
			}
			catch (RuntimeException ex) {
				done.run();
				throw ex;
			}
			answer.whenComplete((reply, failure) -> done.run());
			return answer;
		}
		catch (RedisException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** The time, the channel, then {@code args}. */
	private String[] arguments(RedisLink link, long nowNanos, String... args) {
		String[] all = new String[args.length + 2];
		all[0] = this.serverTime ? "" : Long.toString(Math.floorDiv(nowNanos, 1000) + offsetMicros(link));
		all[1] = this.keys.channel();
		System.arraycopy(args, 0, all, 2, args.length);
		return all;
	}

	/** The given clock's anchor, in µs, read on {@code link} if not known yet. */
	private long offsetMicros(RedisLink link) {
		Long offset = this.offsetMicros;
		if (offset == null) {
			offset = ClockAnchor.offsetMicros(this.clock, link, this.timeout);
			this.offsetMicros = offset;
		}
		return offset;
	}

	/**
	 * Runs a queue script, waiting at most the command timeout.
	 * @param script the script
	 * @param args its arguments after the time and the channel
	 * @return its answer
	 * @throws RedisQueueException if it fails
	 */
	<R> R run(LuaScript script, String... args) {
		return answer(send(script, args));
	}

	/**
	 * Ends leases with the layout's done script, up to {@link QueueLayout#DONE_BATCH} a
	 * script, one script after the other.
	 * @param leases the leases, at least one
	 * @throws RedisQueueException if a script fails (those that ran before stay done)
	 */
	void done(List<RedisLease> leases) {
		for (int from = 0; from < leases.size(); from += QueueLayout.DONE_BATCH) {
			List<RedisLease> batch = leases.subList(from, Math.min(leases.size(), from + QueueLayout.DONE_BATCH));
			run(this.layout.done, QueueLayout.doneArgs(batch));
		}
	}

	/**
	 * Returns the reading of the clock the scripts use, or 0 on the server's clock: a
	 * reading for {@link #sendAt}, which anchors it.
	 * @return the reading
	 */
	long now() {
		return this.serverTime ? 0 : this.clock.nanoTime();
	}

	/**
	 * Waits for an answer at most the command timeout.
	 * @param answer the answer to come
	 * @return the answer
	 * @throws RedisQueueException if it failed or timed out
	 */
	<R> R answer(CompletableFuture<R> answer) {
		try {
			return RedisLink.answer(answer, this.timeout);
		}
		catch (RedisException ex) {
			throw named(failure(ex));
		}
	}

	/**
	 * Waits for an answer at most the command timeout, or until interrupted.
	 * @param answer the answer to come
	 * @return the answer
	 * @throws InterruptedException if interrupted first
	 * @throws RedisQueueException if it failed or timed out
	 */
	<R> R answerInterruptibly(CompletableFuture<R> answer) throws InterruptedException {
		try {
			return RedisLink.answerInterruptibly(answer, this.timeout);
		}
		catch (RedisException ex) {
			throw named(failure(ex));
		}
	}

	/**
	 * Names the key of a wrong-type failure that Redis reported without it (the scripts
	 * read some keys before they write, and such a read fails with Redis's own message).
	 * Every script meets a key of another type before its first write, or puts back what
	 * it wrote before it fails, so the script wrote nothing; a done that rides with the
	 * next get is done before the get starts, and stays done.
	 */
	private RedisQueueException named(RedisQueueException failure) {
		if (failure.reason() != RedisQueueException.Reason.WRONG_TYPE
				|| failure.getMessage().contains("WRONGTYPE key")) {
			return failure;
		}
		try {
			List<Object> wrong = RedisLink.answer(sendAt(0, LuaScript.CHECK_TYPES), this.timeout);
			if (!wrong.isEmpty()) {
				return new RedisQueueException(failure.reason(), where() + ": " + failure.reason().description()
						+ ": key " + wrong.get(0) + " holds a " + wrong.get(1) + ", not the " + wrong.get(2)
						+ " the queue keeps there; the script that met it wrote nothing (but for a done sent with"
						+ " the next get, which stays done)", failure.getCause());
			}
		}
		catch (RedisException ex) {
			failure.addSuppressed(ex);
		}
		return failure;
	}

	/** Describes a failure of this queue's call. */
	RedisQueueException failure(Throwable cause) {
		Throwable unwrapped = RedisLink.unwrap(cause);
		if (unwrapped instanceof RedisLink.ClientShutDownException) {
			this.clientShutDown = true;
		}
		return RedisFailures.of(this.who, this.link.server(), unwrapped);
	}

	/** Whether a call found the application's client shut down. */
	boolean clientShutDown() {
		return this.clientShutDown;
	}

	/**
	 * The handle is shut down: sends on its link count themselves from now on. Called
	 * before the handle's shutdown flag is set, so before the link can be given back.
	 */
	void counting() {
		this.counting = true;
	}

	/**
	 * Gives the link back, once the counted sends under way on it have their answers: the
	 * handle is done with it.
	 */
	void release() {
		counting();
		if (this.released.compareAndSet(false, true)) {
			doneWithLink();
		}
	}

	/** Counts a send in on the handle's link, unless the link was given back. */
	private boolean useLink() {
		int users;
		do {
			users = this.linkUsers.get();
			if (users == 0) {
				return false;
			}
		}
		while (!this.linkUsers.compareAndSet(users, users + 1));
		return true;
	}

	/** Counts a user of the link out; the last one gives the link back. */
	private void doneWithLink() {
		if (this.linkUsers.decrementAndGet() == 0) {
			this.link.release();
		}
	}

	RedisLink link() {
		return this.link;
	}

	QueueKeys keys() {
		return this.keys;
	}

	/** How the queue keeps its ready items: the scripts that change them. */
	QueueLayout layout() {
		return this.layout;
	}

	Duration timeout() {
		return this.timeout;
	}

	String who() {
		return this.who;
	}

	/** How messages name the queue and its server: Queue 'orders' on host:6379. */
	String where() {
		return this.who + " on " + this.link.server();
	}

}
