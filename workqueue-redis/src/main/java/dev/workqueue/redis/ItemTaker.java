package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.ReadySignal.Wakeup;
import dev.workqueue.store.TraceSlot;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a queue handle's {@code get} and {@code poll} take an item: lease the next ready
 * one with a new token, or wait on the {@link ReadySignal} for a notice. An item the
 * codec cannot decode is moved to the dead-letter list; an item one of the handle's
 * workers still holds is parked ({@link LeaseBook}); either way the taker looks again.
 * <p>
 * <b>Decoding takes lease time.</b> A lease is renewed once in the book, and an item is
 * decoded before: an item whose decode (or the decodes before it in one reply) took a
 * third of the lease or more is renewed before it is handed out, and dropped if its lease
 * was lost meanwhile, so that no item goes to a worker while another instance holds it.
 * Two encodings that decode to equal items (a codec that breaks its contract) are said
 * once per handle, naming the codec; the second is held aside until the worker that holds
 * the first is done ({@link LeaseBook}), so a worker that gets again waits for other
 * items instead of meeting the copy again and again.
 * <p>
 * <b>One round trip per item.</b> A get leases an item for itself and one for each
 * consumer of the handle waiting for a notice (at most {@link QueueLayout#maxLeases}),
 * each with its own token; the extra ones wait, leased and renewed with the rest, until
 * those consumers take them. A worker's {@code done} can ride with its next get
 * ({@link dev.workqueue.store.SharedPoller#doneAndPoll}). Items leased ahead are handed
 * back when the last consumer leaves without them, and at shutdown.
 * <p>
 * A get interrupted while it waits for its answer, or whose answer does not come within
 * the command timeout, throws, and leases nothing for good: if the answer comes later,
 * its items are handed back at once; if it never comes (the connection dropped), the
 * tokens are remembered ({@link LeaseReleases#orphan}) and the {@link QueueTimer} looks
 * for their items and hands them back. {@code poll(t)} sends no script after a wait that
 * reached its deadline, so it returns within {@code t} plus one command timeout.
 *
 * @param <T> the item type
 */
final class ItemTaker<T> {

	private static final System.Logger logger = System.getLogger(ItemTaker.class.getName());

	/** What {@link #lease} returns when nothing is ready. */
	private static final Object NONE = new Object();

	private final ItemCodec<T> codec;

	private final QueueScripts scripts;

	private final LeaseBook<T, RedisLease> book;

	private final LeaseTokens tokens;

	private final LeaseReleases<T, RedisLease> releases;

	private final ReadySignal signal;

	private final HandleLifecycle lifecycle;

	/** The queue's hook, guarded; it takes durations only if it records them. */
	private final WorkQueueMetrics metrics;

	private final Clock clock;

	private final Duration lease;

	private final String leaseMicros;

	/**
	 * How long after its get a lease is sure to be renewed in time once in the book: the
	 * timer renews every third of the lease.
	 */
	private final long renewIntervalNanos;

	/** The starvation timeout in µs of a priority queue's get, -1 for none. */
	private final String starvationMicros;

	/**
	 * Items leased for consumers that were waiting, not handed out yet; each is in the
	 * book, so renewed with the rest.
	 */
	private final ConcurrentLinkedQueue<Ahead<T>> ahead = new ConcurrentLinkedQueue<>();

	/** The consumers inside {@link #take}. */
	private final AtomicInteger consumers = new AtomicInteger();

	private final LongAdder deadLettered = new LongAdder();

	private final DeadLetter.Bound deadLetters;

	private final AtomicBoolean inconsistencyLogged = new AtomicBoolean();

	ItemTaker(ItemCodec<T> codec, QueueScripts scripts, LeaseBook<T, RedisLease> book, LeaseTokens tokens,
			LeaseReleases<T, RedisLease> releases, ReadySignal signal, HandleLifecycle lifecycle,
			WorkQueueMetrics metrics, Clock clock, Duration lease, Duration starvationTimeout,
			DeadLetter.Bound deadLetters) {
		this.codec = codec;
		this.scripts = scripts;
		this.book = book;
		this.tokens = tokens;
		this.releases = releases;
		this.signal = signal;
		this.lifecycle = lifecycle;
		this.metrics = metrics;
		this.clock = clock;
		this.lease = lease;
		this.leaseMicros = Long.toString(Nanos.of(lease) / 1000);
		this.renewIntervalNanos = Nanos.of(lease) / 3;
		this.starvationMicros = (starvationTimeout != null) ? Long.toString(Nanos.of(starvationTimeout) / 1000) : "-1";
		this.deadLetters = deadLetters;
	}

	/**
	 * Takes the next item, waiting for one at most {@code timeoutNanos} when
	 * {@code bounded}, and only until {@code wakeup} comes when given; first ends
	 * {@code owedDone}, if given, in the same script as the first lease when it can.
	 * @param bounded whether the wait is bounded
	 * @param timeoutNanos the bound, not negative
	 * @param wakeup the wake-up of the poller that takes, or {@code null} for a plain get
	 * or poll
	 * @param owedDone a lease whose done rides with this get, or {@code null}
	 * @param traces where the trace contexts of the item taken go (set to {@code null}
	 * when it has none, or nothing is taken), or {@code null} to drop them (a plain get)
	 * @return the item with the priority it is handed out with (0 on a plain queue), or
	 * {@code null} on timeout, wake-up, or once shut down
	 */
	Prioritized<T> take(boolean bounded, long timeoutNanos, Wakeup wakeup, RedisLease owedDone, TraceSlot traces)
			throws InterruptedException {
		if (traces != null) {
			traces.trace(null);
		}
		long deadlineNanos = bounded ? Nanos.add(this.clock.nanoTime(), timeoutNanos) : 0;
		boolean waited = false;
		// Whether the signal granted this consumer a look it has not made yet: it makes
		// it, or a consumer beside it would sleep while items are ready (ReadySignal).
		boolean granted = false;
		RedisLease doneFirst = owedDone;
		this.consumers.incrementAndGet();
		try {
			if (Thread.interrupted()) {
				// As a blocking call does: nothing is sent.
				throw new InterruptedException();
			}
			while (true) {
				long seen = this.signal.epoch();
				if (!this.lifecycle.enter()) {
					return null;
				}
				try {
					// No script is sent after a wait that reached the deadline.
					if (!granted && ((waited && bounded && this.clock.nanoTime() >= deadlineNanos)
							|| (wakeup != null && wakeup.take()))) {
						return null;
					}
					granted = false;
					// A poll without a wait always asks Redis; a waiting consumer
					// does not when another found the list empty and no notice came
					// since.
					boolean look = !this.signal.knownEmpty(seen) || (bounded && timeoutNanos == 0);
					if (doneFirst != null && (!look || !this.ahead.isEmpty())) {
						RedisLease done = doneFirst;
						doneFirst = null;
						this.releases.sendDone(done);
					}
					Prioritized<T> early = takeAhead(traces);
					if (early != null) {
						return early;
					}
					if (look) {
						RedisLease done = doneFirst;
						doneFirst = null;
						Object leased = lease(done, seen, traces);
						if (leased != NONE) {
							@SuppressWarnings("unchecked")
							Prioritized<T> item = (Prioritized<T>) leased;
							if (item != null) {
								return item;
							}
							continue;
						}
						this.signal.lookedEmpty(seen, -1);
					}
				}
				finally {
					this.lifecycle.exit();
				}
				if (!this.signal.awaitNotice(bounded, deadlineNanos, wakeup) || this.lifecycle.isShuttingDown()) {
					// Timed out with no notice taken, or shut down (every consumer is
					// woken).
					return null;
				}
				waited = true;
				granted = true;
			}
		}
		finally {
			if (this.consumers.decrementAndGet() == 0 && !this.ahead.isEmpty()) {
				// The last consumer out: no one is left to take them.
				handBackAhead();
			}
			if (doneFirst != null) {
				// Left before it could look (shut down, woken): nothing was taken.
				this.releases.sendDone(doneFirst);
			}
		}
	}

	/**
	 * Leases the next ready items, ending {@code done} first if given: the item to hand
	 * out, with its priority, {@code null} to look again (the items were parked or
	 * dead-lettered), or {@link #NONE} when none is ready. A reply with fewer items than
	 * asked for means the list ran out: empty at epoch {@code seen}.
	 */
	private Object lease(RedisLease done, long seen, TraceSlot traces) throws InterruptedException {
		String token = this.tokens.next();
		QueueLayout layout = this.scripts.layout();
		int count = Math.min(layout.maxLeases, 1 + this.signal.waiting());
		// Before the script runs: the leases it makes run out after this plus a lease.
		long sentNanos = this.clock.nanoTime();
		CompletableFuture<List<Object>> answer = this.scripts.send((done != null) ? layout.doneGet : layout.get,
				layout.getArgs(done, this.leaseMicros, token, count, this.starvationMicros));
		List<Object> reply;
		try {
			reply = this.scripts.answerInterruptibly(answer);
		}
		catch (RedisQueueException | InterruptedException ex) {
			// The script may run all the same: what it leases is handed back. Counted as
			// a call under way, so that the handle keeps its link until the answer is in.
			this.lifecycle.enterAlways();
			answer.whenComplete((late, failure) -> orphanLate(late, failure, token, count, (done != null) ? 1 : 0));
			throw ex;
		}
		finally {
			if (done != null) {
				this.releases.doneSent(done);
			}
		}
		int first = (done != null) ? 1 : 0;
		int group = layout.replyGroup();
		int leased = (reply.size() - first) / group;
		if (leased == 0) {
			return NONE;
		}
		if (leased < count) {
			this.signal.lookedEmpty(seen, -1);
		}
		if (this.lifecycle.isShuttingDown()) {
			// Shut down meanwhile: a shut-down handle hands out nothing more.
			for (int n = 1; n <= leased; n++) {
				handBack((String) reply.get(first + (n - 1) * group), LeaseTokens.nth(token, n));
			}
			return NONE;
		}
		Prioritized<T> mine = null;
		// Read with or without durations: the leases' start times give stats() the
		// unfinished work and longest running processor.
		long nowNanos = this.clock.nanoTime();
		for (int n = 1; n <= leased; n++) {
			int at = first + (n - 1) * group;
			String encoded = (String) reply.get(at);
			long queuedNanos = (Long) reply.get(at + 1) * 1000;
			Prioritized<T> item = inHand(encoded, LeaseTokens.nth(token, n), layout.priority(reply, at), sentNanos,
					nowNanos);
			if (item == null) {
				continue;
			}
			if (mine == null) {
				mine = item;
				if (traces != null) {
					traces.trace(layout.trace(reply, at));
				}
				this.metrics.handedOut(queuedNanos);
			}
			else {
				this.ahead.add(new Ahead<>(item, queuedNanos, nowNanos, layout.trace(reply, at)));
				this.signal.signal();
			}
		}
		if (leased == count) {
			this.signal.moreMayBeReady();
		}
		if (this.lifecycle.isShuttingDown()) {
			// Shut down while they were put aside: whoever sees it hands them back.
			handBackAhead();
		}
		return mine;
	}

	/**
	 * Decodes a leased item and takes its lease in hand: the item to hand out, or
	 * {@code null} if it was dead-lettered, parked, held aside as a copy of an item a
	 * worker holds under another encoding, or its lease ran out while it was decoded.
	 */
	private Prioritized<T> inHand(String encoded, String token, int priority, long sentNanos, long nowNanos) {
		T item;
		try {
			item = Objects.requireNonNull(this.codec.decode(encoded), "decoded item");
		}
		catch (RuntimeException ex) {
			deadLetter(encoded, token, ex);
			return null;
		}
		if (!stillLeased(encoded, token, sentNanos)) {
			return null;
		}
		LeaseBook.Taken taken = this.book.take(item,
				new RedisLease(encoded, token, nowNanos, Nanos.add(sentNanos, Nanos.of(this.lease))));
		if (taken == LeaseBook.Taken.OTHER_ENCODING) {
			inconsistentCodec(item, encoded);
		}
		return (taken == LeaseBook.Taken.HELD) ? new Prioritized<>(item, priority) : null;
	}

	/**
	 * Whether the lease of an item just decoded is surely still this handle's. The timer
	 * renews only the leases in the book, every third of the lease: a lease taken in hand
	 * within a third of the lease after its get has two thirds left, and is renewed in
	 * time. An older one (a slow decode, or the decodes before it in the same reply) may
	 * have run out and gone to another instance: it is renewed here first, and if it was
	 * lost, the item is not handed out. Slow decodes only pay this script.
	 */
	private boolean stillLeased(String encoded, String token, long sentNanos) {
		long elapsedNanos = this.clock.nanoTime() - sentNanos;
		if (elapsedNanos < this.renewIntervalNanos) {
			return true;
		}
		List<String> lost;
		try {
			lost = this.scripts.run(LuaScript.RENEW, this.leaseMicros, encoded, token);
		}
		catch (RedisQueueException ex) {
			// Not sure either way: not handed out, and handed back when Redis answers.
			this.releases.orphan(RedisLease.orphan(encoded, token));
			return false;
		}
		if (lost.isEmpty()) {
			return true;
		}
		logger.log(Level.WARNING,
				this.scripts.who() + " did not hand out an item whose lease ran out while its codec " + this.codec
						+ " decoded it (" + Duration.ofNanos(elapsedNanos) + " after its get, with a lease of "
						+ this.lease + "): another instance may hold it; a decode must take a small part of the lease");
		return false;
	}

	/**
	 * The codec decoded two encodings to equal items, against its contract (equal items,
	 * equal encodings; the encoding is the item's identity in Redis): said once per
	 * handle.
	 */
	private void inconsistentCodec(T item, String encoded) {
		if (this.inconsistencyLogged.compareAndSet(false, true)) {
			logger.log(Level.ERROR, this.scripts.who() + ": its codec " + this.codec
					+ " encodes equal items differently: '" + encoded + "' decodes to an item equal to one a worker"
					+ " holds as '" + this.book.heldEncoding(item) + "'; an item's encoding is its identity in Redis,"
					+ " so equal items must encode to the same string (the copy is held until the worker is done with"
					+ " the item, then goes back to the queue: each copy runs, one after the other)");
		}
	}

	/** Hands out an item leased ahead, if there is one. */
	private Prioritized<T> takeAhead(TraceSlot traces) {
		Ahead<T> next = this.ahead.poll();
		if (next == null) {
			return null;
		}
		if (traces != null) {
			traces.trace(next.trace());
		}
		if (this.metrics.recordsDurations()) {
			this.metrics.handedOut(next.queuedNanos() + (this.clock.nanoTime() - next.leasedNanos()));
		}
		return next.item();
	}

	/**
	 * Hands every item leased ahead back: no consumer is left to take them, or shutdown.
	 * Each consumer leaving {@link #take} counts itself out before it looks at them, and
	 * one that puts them aside does so before it counts itself out, so the last one out
	 * sees every item left.
	 */
	void handBackAhead() {
		for (Ahead<T> next = this.ahead.poll(); next != null; next = this.ahead.poll()) {
			try {
				this.releases.handBackUnused(next.item().item());
			}
			catch (RedisQueueException ex) {
				// Remembered: the timer hands it back.
			}
		}
	}

	private void handBack(String encoded, String token) {
		try {
			this.releases.handBackOrOrphan(RedisLease.orphan(encoded, token), 0);
		}
		catch (RedisQueueException ex) {
			// Remembered: the timer hands it back.
		}
	}

	/**
	 * The answer of a get its caller gave up on, on the client's event loop: the timer
	 * hands back what it leased (or, with no answer, looks for it). Nothing is sent from
	 * here: the event loop must not wait for a connection.
	 */
	private void orphanLate(List<Object> late, Throwable failure, String token, int count, int first) {
		try {
			int group = this.scripts.layout().replyGroup();
			for (int n = 1; n <= count; n++) {
				int at = first + (n - 1) * group;
				if (failure != null) {
					this.releases.orphan(RedisLease.orphan(null, LeaseTokens.nth(token, n)));
				}
				else if (at < late.size()) {
					this.releases.orphan(RedisLease.orphan((String) late.get(at), LeaseTokens.nth(token, n)));
				}
			}
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
			String[] bound = this.deadLetters.args();
			this.scripts.run(LuaScript.DEAD_LETTER, encoded, token,
					DeadLetter.record(encoded, cause, this.scripts.link().server()), bound[0], bound[1]);
		}
		catch (RedisQueueException ex) {
			// Not leased to nobody: handed back, it comes to this again.
			this.releases.orphan(RedisLease.orphan(encoded, token));
		}
	}

	/**
	 * An item leased ahead for a waiting consumer.
	 *
	 * @param item the item and its priority
	 * @param queuedNanos how long it had been queued when leased
	 * @param leasedNanos when it was leased, on the clock
	 * @param trace its trace contexts, or {@code null}
	 */
	private record Ahead<T>(Prioritized<T> item, long queuedNanos, long leasedNanos, ItemTrace trace) {

	}

	long deadLettered() {
		return this.deadLettered.sum();
	}

}
