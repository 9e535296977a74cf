package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.WorkQueueStats;
import dev.workqueue.postgres.AddGroup.Request;
import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.PriorityHandle;
import dev.workqueue.spi.TraceContextSource;
import dev.workqueue.store.ItemTaker;
import dev.workqueue.store.LeaseBook;
import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.SharedPoller;
import dev.workqueue.store.SharedQueue;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * One instance's handle on a queue kept in a PostgreSQL table, which every handle with
 * the same table and name shares. Built by {@link PostgresWorkQueues}; rate limiting
 * wraps it as core's does ({@link dev.workqueue.WorkQueues#rateLimiting}), and
 * {@link dev.workqueue.spi.SharedPriorityQueue} is the priority face of a handle with the
 * {@link ReadyOrder#PRIORITY priority order}.
 * <p>
 * <b>State.</b> All shared state is the queue's rows (one per item, {@code schema.sql});
 * each change of an item's state is one statement ({@link QueueSql}), so client-go's
 * rules hold across instances. Leases are rows of their own (the table's {@code _lease}
 * table, see {@link QueueSql}), which applications never lock, so that an item row held
 * by another session never holds up a renewal. The handle keeps only the leases it holds
 * ({@link LeaseBook}), renewed by its {@link LeaseKeeper}; its adds go as
 * {@link ItemAdds} says, its consumers take items as {@link ItemTaker} and
 * {@link ItemClaims} say, and its holds end as {@link LeaseReleases} says. An item whose
 * holder stopped renewing is queued again, and the former holder's late {@code done}
 * names a token the row no longer has: it changes nothing. At least once, and never two
 * live holders.
 * <p>
 * <b>Trace contexts.</b> With a {@link TraceContextSource}, each {@code add},
 * {@code addAfter} and {@code addAll} asks it once, on the adding thread, and an add that
 * gets a context sends it with its upsert, which keeps it in the item's row
 * ({@link QueueSql#addTraced}); the claim takes it for the worker's
 * {@link Poller#trace()}. An add without a context sends what it would without a source.
 * <p>
 * <b>Parts.</b> The builder makes the parts first, each with what it uses, then this
 * handle: none of them calls back into it.
 * <p>
 * <b>Happens-before.</b> Actions before {@code add(x)} in one instance happen before the
 * actions after the {@code get} that returns {@code x} in any instance, through the
 * database: the add's commit precedes the claim that sees its row.
 * <p>
 * <b>Shutdown</b> is this instance's only: adds are ignored, {@code get} hands out
 * nothing more, items claimed ahead are handed back, and queued and delayed rows stay for
 * the others. The handle renews what its workers hold until each item is done or
 * {@linkplain #handBack() handed back}; then its keeper ends.
 *
 * @param <T> the item type
 */
final class PostgresWorkQueue<T> implements PriorityHandle<T>, SharedQueue, PollerFactory<T> {

	private final ItemText<T> text;

	private final QueueDatabase database;

	private final QueueSql sql;

	private final Clock clock;

	/** The user's hook, guarded: a hook that throws costs its call only. */
	private final WorkQueueMetrics metrics;

	private final LeaseBook<T, PostgresLease> book;

	private final ReadySignal signal;

	private final HandleLifecycle lifecycle;

	private final ItemAdds adds;

	private final ItemTaker<T, PostgresLease> taker;

	private final LeaseReleases<T, PostgresLease> releases;

	private final LeaseKeeper keeper;

	/** Stopped by a shutdown: a shut-down handle waits for no notice. */
	private final QueueNotices notices;

	/** Tells of a held cleanup horizon. */
	private final FinishedRows rows;

	private final LongAdder retries = new LongAdder();

	/** Where adds get their trace context, guarded; {@code null} for none. */
	private final TraceContextSource traceSource;

	PostgresWorkQueue(ItemText<T> text, QueueDatabase database, QueueSql sql, Clock clock, WorkQueueMetrics metrics,
			LeaseBook<T, PostgresLease> book, ReadySignal signal, HandleLifecycle lifecycle, ItemAdds adds,
			ItemTaker<T, PostgresLease> taker, LeaseReleases<T, PostgresLease> releases, LeaseKeeper keeper,
			QueueNotices notices, FinishedRows rows, TraceContextSource traceSource) {
		this.text = text;
		this.database = database;
		this.sql = sql;
		this.clock = clock;
		this.metrics = metrics;
		this.book = book;
		this.signal = signal;
		this.lifecycle = lifecycle;
		this.adds = adds;
		this.taker = taker;
		this.releases = releases;
		this.keeper = keeper;
		this.notices = notices;
		this.rows = rows;
		this.traceSource = traceSource;
	}

	/** The current trace context, or {@code null} without a source or a current span. */
	private String currentContext() {
		return (this.traceSource != null) ? this.traceSource.currentContext() : null;
	}

	@Override
	public void add(T item) {
		add(item, 0);
	}

	/**
	 * Adds an item with a priority (0 on a plain queue).
	 * @param item the item
	 * @param priority the priority
	 * @throws IllegalArgumentException if the priority is out of range or the item's text
	 * holds a NUL, before any SQL
	 */
	@Override
	public void add(T item, int priority) {
		PriorityQueue.checkPriority(priority);
		Request request = new Request(this.text.encode(item), priority, 0, currentContext());
		if (!this.lifecycle.enter()) {
			return;
		}
		try {
			if (this.adds.add(List.of(request)).get(0).effective()) {
				this.metrics.added();
			}
		}
		finally {
			this.lifecycle.exit();
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Every item is encoded before any SQL; outside a caller's transaction they go in one
	 * statement and one commit (with the concurrent adds of other threads), each at
	 * priority 0.
	 */
	@Override
	public void addAll(Collection<? extends T> items) {
		List<Request> requests = new ArrayList<>(items.size());
		String context = currentContext();
		for (T item : items) {
			requests.add(new Request(this.text.encode(item), 0, 0, context));
		}
		if (requests.isEmpty() || !this.lifecycle.enter()) {
			return;
		}
		try {
			for (Added added : this.adds.add(requests)) {
				if (added.effective()) {
					this.metrics.added();
				}
			}
		}
		finally {
			this.lifecycle.exit();
		}
	}

	@Override
	public void addAfter(T item, Duration delay) {
		addAfter(item, delay, 0);
	}

	/**
	 * Adds an item with a priority (0 on a plain queue) once the delay has passed.
	 * @param item the item
	 * @param delay the delay; zero or less is an add
	 * @param priority the priority
	 */
	@Override
	public void addAfter(T item, Duration delay, int priority) {
		Objects.requireNonNull(delay, "delay");
		long delayNanos = Nanos.of(delay);
		if (delayNanos <= 0) {
			add(item, priority);
		}
		else {
			PriorityQueue.checkPriority(priority);
			Request request = new Request(this.text.encode(item), priority, Delays.micros(delayNanos),
					currentContext());
			if (!this.lifecycle.enter()) {
				return;
			}
			try {
				this.adds.add(List.of(request));
			}
			finally {
				this.lifecycle.exit();
			}
		}
		if (!this.lifecycle.isShuttingDown()) {
			// client-go counts every addAfter as a retry.
			this.retries.increment();
			this.metrics.retried();
		}
	}

	@Override
	public T get() throws InterruptedException {
		Prioritized<T> taken = take(null);
		return (taken != null) ? taken.item() : null;
	}

	@Override
	public T poll(Duration timeout) throws InterruptedException {
		Prioritized<T> taken = take(Objects.requireNonNull(timeout, "timeout"));
		return (taken != null) ? taken.item() : null;
	}

	@Override
	public Prioritized<T> take(Duration timeout) throws InterruptedException {
		boolean bounded = timeout != null;
		long timeoutNanos = bounded ? Math.max(0, Nanos.of(timeout)) : 0;
		return this.taker.take(bounded, timeoutNanos, null, null, null);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Its {@code doneAndPoll} is one statement when an item is ready: the done and the
	 * next claim.
	 */
	@Override
	public Poller<T> newPoller() {
		return new SharedPoller<>(this.taker::take, this.releases::finishForNextTake, this.signal);
	}

	@Override
	public void done(T item) {
		this.releases.done(item);
	}

	@Override
	public int handBack() {
		this.taker.handBackAhead();
		return this.releases.handBackAll();
	}

	@Override
	public boolean handBack(Object item, Duration delay) {
		return this.releases.handBack(item, delay);
	}

	/** {@inheritDoc} One count of the shared ready rows. */
	@Override
	public int size() {
		return read("read the size of", this.sql.size, (rows) -> {
			rows.next();
			return rows.getInt(1);
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One read of the table. {@code depth}, {@code processing}, {@code waiting} and
	 * {@code addedWhileProcessing} are the shared figures of every instance;
	 * {@code retries} counts this instance's {@code addAfter} calls; the processing times
	 * cover the items this instance holds.
	 */
	@Override
	public WorkQueueStats stats() {
		long[] shared = read("read the figures of", this.sql.stats, (rows) -> {
			long[] figures = new long[5];
			if (rows.next()) {
				for (int i = 0; i < 5; i++) {
					figures[i] = rows.getLong(i + 1);
				}
			}
			return figures;
		});
		long[] processing = this.book.processingNanos(this.clock.nanoTime());
		return WorkQueueStats.builder()
			.depth((int) shared[0])
			.processing((int) shared[1])
			.waiting((int) shared[2])
			.retries(this.retries.sum())
			.headQueuedNanos(shared[4] * 1000)
			.unfinishedWorkNanos(processing[0])
			.longestRunningProcessorNanos(processing[1])
			.addedWhileProcessing((int) shared[3])
			.build();
	}

	/**
	 * The ready items per priority, highest first, with the age of the first in line of
	 * each: one read of the table.
	 * @return the levels
	 */
	@Override
	public List<Level> readyLevels() {
		return read("read the levels of", this.sql.levels, (rows) -> {
			List<Level> levels = new ArrayList<>();
			while (rows.next()) {
				levels.add(new Level(rows.getInt(1), rows.getInt(2), rows.getLong(3) * 1000));
			}
			return levels;
		});
	}

	/**
	 * A read, counted as a call under way: {@code :now} and {@code :queue}.
	 */
	private <R> R read(String action, SqlStatement sql, Reader<R> reader) {
		this.lifecycle.enterAlways();
		try {
			return this.database.run(action, (connection) -> {
				try (PreparedStatement statement = sql.prepare(connection)) {
					this.database.bindNow(sql, statement);
					sql.setString(statement, "queue", this.database.name());
					try (ResultSet rows = statement.executeQuery()) {
						return reader.read(rows);
					}
				}
			});
		}
		finally {
			this.lifecycle.exit();
		}
	}

	/** Reads a result. */
	@FunctionalInterface
	private interface Reader<R> {

		R read(ResultSet rows) throws java.sql.SQLException;

	}

	@Override
	public void shutDown() {
		this.lifecycle.shutDown();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.notices.stopListening();
	}

	@Override
	public void shutDownWithDrain() {
		// The flag first, then the wake-ups: a consumer woken sees it.
		int shutDowns = this.lifecycle.shutDownForDrain();
		this.signal.signalAll();
		this.taker.handBackAhead();
		this.notices.stopListening();
		this.lifecycle.awaitDrained(shutDowns, this.book::isEmpty);
	}

	@Override
	public boolean isShuttingDown() {
		return this.lifecycle.isShuttingDown();
	}

	@Override
	public String name() {
		return this.database.name();
	}

	@Override
	public boolean reportsSharedGauges() {
		return this.keeper.reporter() && !this.lifecycle.isShuttingDown();
	}

	@Override
	public boolean reachable() {
		return this.keeper.reachable();
	}

	/** Another session holding back the table's cleanup: the queue works, slower. */
	@Override
	public String warning() {
		return this.rows.warning();
	}

	/** "unreachable", or the reason itself for a read-only database. */
	@Override
	public String failure() {
		Reason failing = this.keeper.failing();
		if (failing == null) {
			return null;
		}
		return (failing == Reason.READ_ONLY) ? "read-only: " + failing.description() : "unreachable";
	}

	/** {@inheritDoc} Items claimed ahead included. */
	@Override
	public int held() {
		return this.book.size();
	}

	@Override
	public long stalled() {
		return this.keeper.stalled();
	}

	@Override
	public long deadLettered() {
		return this.taker.deadLettered();
	}

	/** {@inheritDoc} One read of the table, as {@link #stats()}. */
	@Override
	public int pending() {
		return stats().pending();
	}

	/** {@inheritDoc} Here the table. */
	@Override
	public String server() {
		return this.database.table();
	}

	/** How many consumers wait for a notice; for tests. */
	int waitingConsumers() {
		return this.signal.waiting();
	}

	/** The lease keeper, for tests. */
	LeaseKeeper keeper() {
		return this.keeper;
	}

	@Override
	public String toString() {
		return "PostgresWorkQueue[" + name() + " in " + this.database.table() + "]";
	}

}
