package dev.workqueue.redis;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.lettuce.core.RedisException;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.redis.RedisQueueException.Reason;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.TimedWork;
import dev.workqueue.store.TimedWorkDriver;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * The timed work of one queue handle, run by the link's {@link TimerThread}: it
 * subscribes to the queue's notices (and has the link's {@link WakeWatch} wait on the
 * queue's wake list for the handle's consumers, on a standalone Redis), runs the tick
 * script (due delayed items into the ready list, expired leases back to it, the reporter
 * role), renews the handle's leases every third of the lease, hands back what gets that
 * never answered may have leased, and wakes again at the next due time, lease expiry or
 * renewal, at most one heartbeat later. An idle queue costs one script per heartbeat. The
 * policy (when to renew, tick and hand back, backoff, logging once per cause, the end) is
 * core's {@link TimedWork}, with this class as its driver.
 * <p>
 * Failures never end it: it backs off up to the heartbeat. Only the application's
 * shutdown of the client ends it early, said once. The hook's {@code stalled} runs on the
 * timer's hook thread, never on the timer thread, which renews the leases of every queue
 * on the client. Once the handle is shut down and holds nothing, it unsubscribes, gives
 * up the reporter role and the link, and removes itself.
 * <p>
 * Runs on the timer thread only, except {@link #start} and the readers of the volatile
 * figures; the other parts of the handle wake it through its {@link TimerThread.Slot},
 * which exists before it.
 */
final class QueueTimer implements TimerThread.Job, TimedWorkDriver<RedisLease, Reason> {

	private static final System.Logger logger = System.getLogger(QueueTimer.class.getName());

	/**
	 * The format of what this release keeps in Redis, in each queue's mark: 2 since the
	 * mark was introduced (a queue without one was written by the previous release, whose
	 * keys this release reads as they are).
	 */
	static final int FORMAT = 2;

	/** Most due items, and most expired leases, one tick moves. */
	static final int BATCH = 500;

	/** Most leases one renewal script extends. */
	private static final int RENEW_BATCH = 256;

	private final QueueScripts scripts;

	/** Hands the orphans back, as the engine's hand-backs in place. */
	private final ReleaseScripts releases;

	/**
	 * The handle's look into the queue, which moves the previous release's dead letters.
	 */
	private final RedisInspection inspection;

	private final LeaseBook<?, RedisLease> book;

	private final HandleLifecycle lifecycle;

	private final ReadySignal signal;

	private final WakeHandOff handOff;

	private final TimerThread.Slot slot;

	private final String id;

	private final String leaseMicros;

	private final long heartbeatNanos;

	/** How long the reporter role outlives its last renewal: three heartbeats. */
	private final String reporterMillis;

	/**
	 * The mark of the queues this handle joins ({@code mark.lua}), which its ticks set
	 * again should it be lost while the handle reports.
	 */
	private final String mark;

	/** One object, so that unsubscribing finds it. */
	private final Consumer<String> listener = this::onNotice;

	private final TimedWork<RedisLease, Reason> work;

	private boolean subscribed;

	/** Whether the keys' types were checked; guarded as {@link #subscribed}. */
	private boolean typesChecked;

	/** Whether the last tick script answered that this handle reports the gauges. */
	private boolean reporter;

	/** Whether the queue's mark was checked: at the start, or by the first run after. */
	private boolean marked;

	QueueTimer(QueueScripts scripts, WorkQueueMetrics metrics, LeaseBook<?, RedisLease> book, HandleLifecycle lifecycle,
			ReadySignal signal, WakeHandOff handOff, Clock clock, TimerThread.Slot slot, String id, Duration lease,
			Duration heartbeat, RedisInspection inspection) {
		this.scripts = scripts;
		this.releases = new ReleaseScripts(scripts);
		this.inspection = inspection;
		this.book = book;
		this.lifecycle = lifecycle;
		this.signal = signal;
		this.handOff = handOff;
		this.slot = slot;
		this.id = id;
		this.leaseMicros = Long.toString(Nanos.of(lease) / 1000);
		this.heartbeatNanos = Nanos.of(heartbeat);
		this.reporterMillis = Long.toString(Math.max(1, 3 * heartbeat.toMillis()));
		this.mark = FORMAT + ":" + ClockKind.ofHandle(id).letter();
		this.work = new TimedWork<>(this, book, lifecycle, metrics, slot::hook, clock, slot::wake, logger,
				scripts.who(), scripts.who() + " works on " + scripts.link().server(), Nanos.of(lease),
				this.heartbeatNanos);
	}

	/**
	 * Subscribes and checks the keys and the permissions the queue needs, then schedules
	 * the work. An unreachable or full Redis is not an error here (the work retries); a
	 * key of the wrong type or a missing permission is.
	 * @throws RedisQueueException naming the key or the permission
	 */
	void start() {
		WakeWatch wakes = this.scripts.link().wakeWatch();
		if (wakes != null) {
			wakes.watch(this.scripts.keys().wake(), this.signal, this.handOff);
		}
		try {
			subscribe();
			checkTypes();
			checkMark();
		}
		catch (IllegalStateException ex) {
			this.work.stop();
			throw ex;
		}
		catch (RedisQueueException ex) {
			if (ex.reason() == Reason.NO_PERMISSION || ex.reason() == Reason.WRONG_TYPE) {
				// Named while the link is open (naming the user asks Redis), and a failed
				// SUBSCRIBE is already named.
				RedisQueueException thrown = (ex.reason() == Reason.NO_PERMISSION && this.subscribed)
						? permissionDenied(deniedInCheck(ex), ex) : ex;
				this.work.stop();
				throw thrown;
			}
			this.work.failed(ex);
		}
		this.slot.start(this);
	}

	/** Checks the types of the queue's keys and the right to publish its notices. */
	private void checkTypes() {
		List<Object> wrong = this.scripts.run(LuaScript.CHECK_TYPES, this.scripts.layout().id);
		if (wrong.size() > 3) {
			throw new RedisQueueException(Reason.WRONG_TYPE,
					this.scripts.where() + ": key " + wrong.get(0) + " holds a " + wrong.get(1) + " that a "
							+ ("list".equals(wrong.get(3)) ? "plain" : "priority")
							+ " queue of the same name keeps; a plain queue and a priority queue may not share a name",
					null);
		}
		if (!wrong.isEmpty()) {
			throw new RedisQueueException(Reason.WRONG_TYPE, this.scripts.where() + ": key " + wrong.get(0)
					+ " holds a " + wrong.get(1) + ", not the " + wrong.get(2)
					+ " the queue keeps there; another program uses the queue's key prefix, or the queue's name", null);
		}
		this.typesChecked = true;
	}

	/**
	 * Refuses to join a queue kept in another format or timed by the other kind of clock,
	 * as its mark says ({@code mark.lua}, which sets the mark on a queue without one), or
	 * one that a live handle of the previous release uses with the other kind or with a
	 * given clock (whose readings it did not anchor), or, before kinds, at all.
	 * @throws IllegalStateException naming both formats or both kinds, and the way out
	 */
	private void checkMark() {
		ClockKind mine = ClockKind.ofHandle(this.id);
		List<String> answer = this.scripts.run(LuaScript.MARK, Integer.toString(FORMAT), String.valueOf(mine.letter()));
		this.marked = true;
		String mark = answer.get(0);
		String where = this.scripts.where();
		String key = this.scripts.keys().mark();
		String upgrading = " (see \"Upgrading\" in docs/redis.md)";
		if (mark.isEmpty()) {
			ClockKind theirs = ClockKind.ofHandle(answer.get(1));
			if (theirs == null) {
				throw new IllegalStateException(
						where + ": a handle of an earlier release that does not say its kind of clock is live (id "
								+ answer.get(1)
								+ "); stop every instance of that release before this one uses the queue" + upgrading);
			}
			if (theirs == mine) {
				throw new IllegalStateException(where
						+ ": a handle of the previous release is live on a clock given to its builder (id "
						+ answer.get(1) + "), whose readings it sends as they are, and this release anchors them on"
						+ " the server's time, so the two would disagree on every delay and lease; stop every instance"
						+ " of the previous release" + upgrading);
			}
			throw new IllegalStateException(
					mismatch(where, theirs, mine) + ", or stop every instance of the previous release" + upgrading);
		}
		int colon = mark.indexOf(':');
		ClockKind theirs = (colon >= 0 && colon == mark.length() - 2) ? ClockKind.ofLetter(mark.charAt(colon + 1))
				: null;
		String format = (colon >= 0) ? mark.substring(0, colon) : mark;
		if (theirs == null || !format.equals(Integer.toString(FORMAT))) {
			throw new IllegalStateException(where + ": the queue is kept in format " + format + " (its mark " + key
					+ " holds '" + mark + "'), and this release reads and writes format " + FORMAT
					+ "; instances of different formats may not share a queue" + upgrading);
		}
		if (theirs != mine) {
			throw new IllegalStateException(mismatch(where, theirs, mine) + " (the queue keeps its kind in " + key
					+ "), or stop every instance and delete that key" + upgrading);
		}
		moveDeadLetters();
	}

	/**
	 * Moves the dead letters of the previous release into the given-up records, once the
	 * mark let this handle join the queue. Not moved (Redis failed), they expire as they
	 * did, or the next handle built moves them: said at WARNING, and the handle goes on.
	 */
	private void moveDeadLetters() {
		try {
			int moved = this.inspection.moveDeadLetters();
			if (moved > 0) {
				logger.log(Level.INFO, this.scripts.where() + ": moved " + moved + " dead letters of the previous"
						+ " release from " + this.scripts.keys().dead() + " into the given-up records");
			}
		}
		catch (RedisQueueException ex) {
			logger.log(Level.WARNING,
					this.scripts.where() + ": the dead letters of the previous release in " + this.scripts.keys().dead()
							+ " were not moved into the given-up records (" + ex.getMessage()
							+ "); the next handle built moves them, or they expire");
		}
	}

	private static String mismatch(String where, ClockKind theirs, ClockKind mine) {
		return where + ": its handles time delays and leases with " + theirs.description() + ", and this one with "
				+ mine.description() + "; every handle of a queue must use the same kind of clock, or one would"
				+ " take the items another holds (leases made on one clock run out at once on the other): build it "
				+ ((mine == ClockKind.CALLER) ? "without a clock" : "with a clock");
	}

	/**
	 * Checks the mark at the first run after a start that could not (Redis did not
	 * answer): a handle refused then is shut down, said at ERROR.
	 * @return whether the handle may go on
	 */
	private boolean markedLate() {
		try {
			checkMark();
			return true;
		}
		catch (IllegalStateException ex) {
			refusedLate(ex.getMessage());
			return false;
		}
	}

	/**
	 * Checks the keys' types that the start could not: refused as the build would have
	 * been (a key of the wrong type, a missing permission), the handle shuts down.
	 * @return whether it may go on
	 */
	private boolean typesCheckedLate() {
		try {
			checkTypes();
			return true;
		}
		catch (RedisQueueException ex) {
			if (ex.reason() != Reason.WRONG_TYPE && ex.reason() != Reason.NO_PERMISSION) {
				throw ex;
			}
			refusedLate(ex.getMessage());
			return false;
		}
	}

	/** A check the start could not make refused the handle: it shuts down, said once. */
	private void refusedLate(String why) {
		logger.log(Level.ERROR, why + "; this handle is shut down");
		this.lifecycle.shutDown();
		this.signal.signalAll();
	}

	private void subscribe() {
		try {
			this.scripts.link().subscribe(this.scripts.keys().channel(), this.listener, this.scripts.timeout());
		}
		catch (RedisException ex) {
			RedisQueueException failure = this.scripts.failure(ex);
			throw (failure.reason() == Reason.NO_PERMISSION)
					? permissionDenied("SUBSCRIBE to " + this.scripts.keys().channel(), failure) : failure;
		}
		this.subscribed = true;
		// Notices sent before the subscription are lost: look once now.
		this.signal.signal();
	}

	/**
	 * What the user may not do that the start-up check needs: run the scripts at all
	 * (NOPERM on EVALSHA), or, inside check_types, read the queue's keys (TYPE, EXISTS)
	 * or PUBLISH its notices. Redis 7.0 reports a command denied inside a script as an
	 * error of the script ({@link RedisFailures#SCRIPT_DENIED}), naming the channel or
	 * the keys, or neither for a command denied as such: check_types runs PUBLISH besides
	 * TYPE and EXISTS, which a user who may run scripts on the queue's keys may run.
	 */
	private String deniedInCheck(RedisQueueException denied) {
		String message = String.valueOf(RedisLink.unwrap(denied.getCause()).getMessage());
		String publish = "PUBLISH to " + this.scripts.keys().channel() + " (so notices would be lost)";
		if (message.contains("keys")) {
			return "read the queue's keys (" + this.scripts.keys().queue() + ", ...)";
		}
		if (message.contains(RedisFailures.SCRIPT_DENIED) || message.toLowerCase(Locale.ROOT).contains("publish")) {
			return publish;
		}
		return "run the queue's scripts (EVALSHA, EVAL)";
	}

	private RedisQueueException permissionDenied(String what, RedisQueueException cause) {
		return new RedisQueueException(Reason.NO_PERMISSION,
				this.scripts.where() + ": permission denied: " + this.scripts.link().user(this.scripts.timeout())
						+ " may not " + what + ": " + RedisLink.unwrap(cause.getCause()).getMessage(),
				cause);
	}

	/** Called on the client's event loop for each notice: must not block. */
	private void onNotice(String notice) {
		if ("w".equals(notice)) {
			this.slot.wake();
		}
		else if ("r".equals(notice)) {
			this.signal.queued();
		}
	}

	/** Runs the work as soon as the thread can. */
	void wake() {
		this.slot.wake();
	}

	@Override
	public long run(long nowNanos) {
		return this.work.run(nowNanos);
	}

	/**
	 * Subscribes, checks the keys' types and checks the mark, each if the start could not
	 * (Redis did not answer it).
	 */
	@Override
	public boolean prepare() {
		if (!this.lifecycle.isShuttingDown()) {
			if (!this.subscribed) {
				subscribe();
			}
			if (!this.typesChecked && !typesCheckedLate()) {
				return false;
			}
		}
		return this.marked || this.lifecycle.isShuttingDown() || markedLate();
	}

	/**
	 * One tick script: due delayed items into the ready list, expired leases back to it.
	 */
	@Override
	public Reaped reap(long nowNanos) {
		List<Long> result = this.scripts.run(this.scripts.layout().tick, Integer.toString(BATCH), this.id,
				this.reporterMillis, this.mark);
		this.reporter = result.get(5) == 1;
		long moved = result.get(0);
		long reaped = result.get(1);
		if (result.get(4) > 0) {
			// Insurance against a lost notice: someone should look.
			this.signal.signalUnlessPending();
		}
		if (moved == BATCH || reaped == BATCH) {
			return new Reaped(reaped, nowNanos);
		}
		long sleepNanos = this.heartbeatNanos;
		for (int i = 2; i <= 3; i++) {
			long micros = result.get(i);
			if (micros >= 0) {
				sleepNanos = Math.min(sleepNanos, micros * 1000);
			}
		}
		return new Reaped(reaped, Nanos.add(nowNanos, sleepNanos));
	}

	/** The tick script took or kept the role: its answer. */
	@Override
	public boolean report() {
		return this.reporter;
	}

	/** Every run ticks: a wake may mean a delayed item is due sooner. */
	@Override
	public boolean ticksEveryRun() {
		return true;
	}

	@Override
	public Predicate<RedisLease> renew(List<RedisLease> live) {
		Set<String> lost = new HashSet<>();
		for (int from = 0; from < live.size(); from += RENEW_BATCH) {
			List<RedisLease> batch = live.subList(from, Math.min(live.size(), from + RENEW_BATCH));
			String[] args = new String[1 + 2 * batch.size()];
			args[0] = this.leaseMicros;
			for (int i = 0; i < batch.size(); i++) {
				args[1 + 2 * i] = batch.get(i).encoded();
				args[2 + 2 * i] = batch.get(i).token();
			}
			lost.addAll(this.scripts.<List<String>>run(LuaScript.RENEW, args));
		}
		return (lease) -> !lost.contains(lease.token());
	}

	/**
	 * Hands back the leases this handle could not: those whose release failed, and those
	 * of gets that never heard back from Redis (found by their tokens). Each goes back in
	 * its place in line, as the engine's hand-backs in place do (a list's head, where its
	 * get took it from): none was done.
	 */
	@Override
	public void handBack(List<RedisLease> orphans) {
		List<RedisLease> unknown = orphans.stream().filter((orphan) -> orphan.encoded() == null).toList();
		if (!unknown.isEmpty()) {
			List<String> found = this.scripts.run(LuaScript.RECONCILE,
					unknown.stream().map(RedisLease::token).toArray(String[]::new));
			orphans.removeAll(unknown);
			for (int i = 0; i < found.size(); i += 2) {
				orphans.add(RedisLease.orphan(found.get(i), found.get(i + 1)));
			}
		}
		for (Iterator<RedisLease> left = orphans.iterator(); left.hasNext();) {
			RedisLease orphan = left.next();
			this.releases.handBackInPlace(orphan);
			left.remove();
		}
	}

	@Override
	public Reason failure(RuntimeException failure) {
		if (failure instanceof RedisQueueException known) {
			return known.reason();
		}
		throw failure;
	}

	@Override
	public String describe(Reason cause) {
		return cause.description();
	}

	/**
	 * The application shut the client down under the handle: nothing can be sent any
	 * more, so the work ends at once, said once. What the handle holds is renewed no
	 * more: the leases run out and the other instances get the items; every later call of
	 * the handle throws.
	 */
	@Override
	public String gone() {
		if (!this.scripts.clientShutDown()) {
			return null;
		}
		return this.scripts.where() + ": the Lettuce client was shut down while the queue was in use (holding "
				+ this.book.size()
				+ " item(s)); its timed work stops: their leases run out and the items go back to the queue"
				+ " for the other instances, and its calls throw RedisQueueException from now on";
	}

	/** Unsubscribes and gives up the reporter role. */
	@Override
	public void resign() {
		this.slot.stop();
		WakeWatch wakes = this.scripts.link().wakeWatch();
		if (wakes != null) {
			wakes.unwatch(this.scripts.keys().wake(), this.signal, this.handOff);
		}
		this.scripts.link().unsubscribe(this.scripts.keys().channel(), this.listener);
		this.scripts.run(LuaScript.RESIGN, this.id);
	}

	/** Gives up the link. */
	@Override
	public void release() {
		this.scripts.release();
	}

	/** Whether the work has ended and the link was given back; for tests. */
	boolean stopped() {
		return this.work.stopped();
	}

	/** The thread that runs this work, for tests. */
	TimerThread thread() {
		return this.slot.thread();
	}

	/** The policy this timer drives, which the handle asks for its figures and health. */
	TimedWork<RedisLease, Reason> work() {
		return this.work;
	}

}
