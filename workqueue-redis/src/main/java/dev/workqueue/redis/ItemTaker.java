package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.redis.LeaseBook.Lease;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a queue handle's {@code get} and {@code poll} take an item: lease the next ready
 * one with a new token, or wait on the {@link ReadySignal} for a notice. An item the
 * codec cannot decode is moved to the dead-letter list; an item one of the handle's
 * workers still holds is parked ({@link LeaseBook}); either way the taker looks again.
 * <p>
 * A get interrupted while it waits for its answer, or whose answer does not come within
 * the command timeout, throws, and leases nothing for good: if the answer comes later,
 * its item is handed back at once; if it never comes (the connection dropped), the token
 * is remembered and the {@link QueueTimer} looks for its item and hands it back.
 * {@code poll(t)} sends no script after a wait that reached its deadline, so it returns
 * within {@code t} plus one command timeout.
 *
 * @param <T> the item type
 */
final class ItemTaker<T> {

	private static final System.Logger logger = System.getLogger(ItemTaker.class.getName());

	/** The epoch of a plain get or poll, which no wake-up ends. */
	static final long NOT_WAKEABLE = Long.MIN_VALUE;

	/** What {@link #lease} returns when nothing is ready. */
	private static final Object NONE = new Object();

	private final RedisWorkQueue<T> queue;

	private final ItemCodec<T> codec;

	private final QueueScripts scripts;

	private final LeaseBook<T> book;

	private final ReadySignal signal;

	private final Lifecycle lifecycle;

	private final Clock clock;

	private final String leaseMicros;

	/** The starvation timeout in µs of a priority queue's get, -1 for none. */
	private final String starvationMicros;

	private final LongAdder deadLettered = new LongAdder();

	ItemTaker(RedisWorkQueue<T> queue, ItemCodec<T> codec, QueueScripts scripts, LeaseBook<T> book, ReadySignal signal,
			Lifecycle lifecycle, Clock clock, Duration lease, Duration starvationTimeout) {
		this.queue = queue;
		this.codec = codec;
		this.scripts = scripts;
		this.book = book;
		this.signal = signal;
		this.lifecycle = lifecycle;
		this.clock = clock;
		this.leaseMicros = Long.toString(Nanos.of(lease) / 1000);
		this.starvationMicros = (starvationTimeout != null) ? Long.toString(Nanos.of(starvationTimeout) / 1000) : "-1";
	}

	/**
	 * Takes the next item, waiting for one at most {@code timeoutNanos} when
	 * {@code bounded}, and only until a wake-up when {@code pollEpoch} is not
	 * {@link #NOT_WAKEABLE}.
	 * @return the item with the priority it is handed out with (0 on a plain queue), or
	 * {@code null} on timeout, wake-up, or once shut down
	 */
	Prioritized<T> take(boolean bounded, long timeoutNanos, long pollEpoch) throws InterruptedException {
		long deadlineNanos = bounded ? Nanos.add(this.clock.nanoTime(), timeoutNanos) : 0;
		boolean waited = false;
		// Whether this consumer took a notice and has not looked since: if it leaves
		// without looking, it passes the notice on, or a consumer beside it would sleep
		// while items are ready.
		boolean owesNotice = false;
		try {
			while (true) {
				long seen = this.signal.epoch();
				if (!this.lifecycle.enter()) {
					return null;
				}
				try {
					// A poll without a wait always asks Redis; a waiting consumer does
					// not when
					// another found the list empty and no notice came since. No script is
					// sent
					// after a wait that reached the deadline.
					if ((waited && bounded && this.clock.nanoTime() >= deadlineNanos) || this.signal.woken(pollEpoch)) {
						return null;
					}
					if (this.signal.knownEmpty(seen) && !(bounded && timeoutNanos == 0)) {
						owesNotice = false;
					}
					else {
						Object leased = lease();
						owesNotice = false;
						if (leased != NONE) {
							@SuppressWarnings("unchecked")
							Prioritized<T> item = (Prioritized<T>) leased;
							if (item != null) {
								return item;
							}
							continue;
						}
						this.signal.markEmpty(seen);
					}
				}
				finally {
					this.lifecycle.exit();
				}
				if (!this.signal.awaitNotice(seen, bounded, deadlineNanos, pollEpoch)
						|| this.lifecycle.isShuttingDown()) {
					// Timed out with no notice taken, or shut down (every consumer is
					// woken).
					owesNotice = false;
					return null;
				}
				waited = true;
				owesNotice = true;
			}
		}
		finally {
			if (owesNotice) {
				this.signal.signal();
			}
		}
	}

	/**
	 * Leases the next ready item: the item to hand out, with its priority, {@code null}
	 * to look again (the item was parked or dead-lettered), or {@link #NONE} when none is
	 * ready.
	 */
	private Object lease() throws InterruptedException {
		String token = this.book.newToken();
		QueueLayout layout = this.scripts.layout();
		CompletableFuture<List<Object>> answer = (layout == QueueLayout.PRIORITY)
				? this.scripts.send(layout.get, this.leaseMicros, token, this.starvationMicros)
				: this.scripts.send(layout.get, this.leaseMicros, token);
		List<Object> reply;
		try {
			reply = this.scripts.answerInterruptibly(answer);
		}
		catch (RedisQueueException | InterruptedException ex) {
			// The script may run all the same: what it leases is handed back. Counted as
			// a
			// call under way, so that the handle keeps its link until the answer is in.
			this.lifecycle.enterAlways();
			answer.whenComplete((late, failure) -> orphanLate(late, failure, token));
			throw ex;
		}
		if (reply.isEmpty()) {
			return NONE;
		}
		String encoded = (String) reply.get(0);
		if ((Long) reply.get(2) > 0) {
			// More are ready: pass the notice on to another waiting consumer.
			this.signal.signal();
		}
		if (this.lifecycle.isShuttingDown()) {
			// Shut down meanwhile: a shut-down handle hands out nothing more.
			try {
				this.queue.releaseOrOrphan(encoded, token, 0);
			}
			catch (RedisQueueException ex) {
				// Remembered: the timer hands it back.
			}
			return NONE;
		}
		T item;
		try {
			item = Objects.requireNonNull(this.codec.decode(encoded), "decoded item");
		}
		catch (RuntimeException ex) {
			deadLetter(encoded, token, ex);
			return null;
		}
		if (!this.book.take(item, new Lease(encoded, token, this.clock.nanoTime()))) {
			return null;
		}
		long queuedNanos = (Long) reply.get(1) * 1000;
		this.queue.record((metrics) -> metrics.handedOut(queuedNanos));
		return new Prioritized<>(item, (reply.size() > 3) ? (int) (long) (Long) reply.get(3) : 0);
	}

	/**
	 * The answer of a get its caller gave up on, on the client's event loop: the timer
	 * hands back what it leased (or, with no answer, looks for it). Nothing is sent from
	 * here: the event loop must not wait for a connection.
	 */
	private void orphanLate(List<Object> late, Throwable failure, String token) {
		try {
			if (failure != null) {
				this.book.orphan(token, null);
			}
			else if (!late.isEmpty()) {
				this.book.orphan(token, (String) late.get(0));
			}
			this.queue.wakeTimer();
		}
		finally {
			this.lifecycle.exit();
		}
	}

	private void deadLetter(String encoded, String token, RuntimeException cause) {
		this.deadLettered.increment();
		logger.log(Level.WARNING, this.scripts.who() + " moved a payload of " + encoded.length()
				+ " characters that its codec cannot decode to " + this.scripts.keys().dead(), cause);
		try {
			this.scripts.run(LuaScript.DEAD_LETTER, encoded, token,
					DeadLetter.record(encoded, cause, this.scripts.link().server()));
		}
		catch (RedisQueueException ex) {
			// Not leased to nobody: handed back, it comes to this again.
			this.book.orphan(token, encoded);
			this.queue.wakeTimer();
			throw ex;
		}
	}

	long deadLettered() {
		return this.deadLettered.sum();
	}

}
