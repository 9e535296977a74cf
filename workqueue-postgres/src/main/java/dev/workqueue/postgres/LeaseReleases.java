package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.postgres.LeaseBook.Holding;
import dev.workqueue.postgres.LeaseBook.Lease;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a handle ends its holds: {@code done} (one statement that deletes the row, or
 * queues it again when it was added meanwhile; it names the lease's token, so a lost
 * lease's done changes nothing), hand-backs of one lease or many, and the remembering of
 * leases whose hand-back failed, which the {@link LeaseKeeper} hands back later. Each
 * counts as a call under way in the handle's {@link HandleLifecycle} and tells a drain
 * when the last hold ends.
 *
 * @param <T> the item type
 */
final class LeaseReleases<T> {

	private final QueueDatabase database;

	private final QueueSql sql;

	private final LeaseBook<T> book;

	private final HandleLifecycle lifecycle;

	/** The queue's hook, guarded. */
	private final WorkQueueMetrics metrics;

	private final Clock clock;

	private final ReadySignal signal;

	private final QueueNotices notices;

	private final FinishedRows rows;

	/** Wakes the lease keeper, which hands back the orphans. */
	private final Runnable orphaned;

	LeaseReleases(QueueDatabase database, QueueSql sql, LeaseBook<T> book, HandleLifecycle lifecycle,
			WorkQueueMetrics metrics, Clock clock, ReadySignal signal, QueueNotices notices, FinishedRows rows,
			Runnable orphaned) {
		this.database = database;
		this.sql = sql;
		this.book = book;
		this.lifecycle = lifecycle;
		this.metrics = metrics;
		this.clock = clock;
		this.signal = signal;
		this.notices = notices;
		this.rows = rows;
		this.orphaned = orphaned;
	}

	/** A worker's {@code done}. */
	void done(T item) {
		Lease lease = finishForNextClaim(item);
		if (lease != null) {
			sendDone(lease);
		}
	}

	/**
	 * Ends a worker's hold of an item whose done rides with the worker's next claim:
	 * returns the lease for that statement to end when the handle holds it live; else
	 * ends the hold as {@code done} does and returns {@code null}. A lease returned keeps
	 * a call under way, and stays in the book as ending, until {@link #doneSent} (or
	 * {@link #sendDone}).
	 * @param item the item
	 * @return the lease to end, or {@code null}
	 */
	Lease finishForNextClaim(T item) {
		Objects.requireNonNull(item, "item");
		this.lifecycle.enterAlways();
		Lease owed = null;
		try {
			Holding holding = this.book.finishForDone(item);
			if (holding == null) {
				return null;
			}
			if (this.metrics.recordsDurations()) {
				this.metrics.done(this.clock.nanoTime() - holding.lease.startedNanos);
			}
			Lease parked = holding.parked;
			owed = holding.ending ? holding.lease : null;
			if (parked != null) {
				// Claimed anew while this worker held it: it runs again, after.
				handBackAfter(parked, 0);
			}
			if (owed == null) {
				forgetWithoutDone(holding.lease);
			}
			return owed;
		}
		finally {
			if (owed == null) {
				afterRelease();
			}
		}
	}

	/**
	 * Ends a lease {@link #finishForNextClaim} returned, alone. If this fails, the lease
	 * is no longer renewed: it runs out and the item comes back, at least once.
	 */
	void sendDone(Lease lease) {
		try {
			Ended ended = this.database.run("mark an item done in", (connection) -> {
				try (PreparedStatement statement = connection.prepareStatement(this.sql.done)) {
					this.database.bindNow(statement);
					bindDone(statement, 2, lease);
					try (ResultSet row = statement.executeQuery()) {
						row.next();
						return Ended.read(row, 1);
					}
				}
			});
			ended(ended);
		}
		finally {
			doneSent(lease);
		}
	}

	/**
	 * Binds the parameters of a done from {@code from} on: the queue, the item and the
	 * token of the row to end, then the history forgotten while it was held (its kinds,
	 * the queue, the item).
	 * @return the next parameter's index
	 */
	int bindDone(PreparedStatement statement, int from, Lease lease) throws SQLException {
		int next = from;
		statement.setString(next++, this.database.name());
		statement.setString(next++, lease.encoded);
		statement.setLong(next++, lease.token);
		statement.setArray(next++, statement.getConnection().createArrayOf("text", lease.forgets));
		statement.setString(next++, this.database.name());
		statement.setString(next++, lease.encoded);
		return next;
	}

	/**
	 * Forgets, on its own, the history deferred to a hold that ends without a done (see
	 * {@link Forgets}).
	 */
	private void forgetWithoutDone(Lease lease) {
		String[] kinds = lease.forgets;
		if (kinds.length == 0) {
			return;
		}
		this.database.run("forget the history of an item of", (connection) -> {
			try (PreparedStatement statement = connection.prepareStatement(this.sql.forget)) {
				statement.setArray(1, connection.createArrayOf("text", kinds));
				statement.setString(2, this.database.name());
				statement.setString(3, lease.encoded);
				return statement.executeUpdate();
			}
		});
	}

	/** What a done did; the others hear of an item it queued again. */
	void ended(Ended ended) {
		this.rows.finished((int) ended.deleted());
		Long backAtMicros = ended.backAtMicros();
		if (backAtMicros == null) {
			return;
		}
		if (backAtMicros <= ended.nowMicros()) {
			this.signal.signal();
			this.notices.queued(0);
		}
		else {
			this.signal.dueIn((backAtMicros - ended.nowMicros()) * 1000);
			this.notices.queued(Math.max(1, Math.floorDiv(backAtMicros, 1000)));
		}
	}

	/**
	 * What a done did.
	 *
	 * @param deleted the rows it deleted: 1, or 0 for a lost lease
	 * @param backAtMicros when the item it queued again is ready (µs since the epoch), or
	 * {@code null} if it was not added meanwhile
	 * @param nowMicros the statement's time
	 */
	record Ended(long deleted, Long backAtMicros, long nowMicros) {

		/** Reads the columns at {@code from}: deleted, back at, now. */
		static Ended read(ResultSet row, int from) throws java.sql.SQLException {
			long deleted = row.getLong(from);
			long backAt = row.getLong(from + 1);
			Long backAtMicros = row.wasNull() ? null : backAt;
			return new Ended(deleted, backAtMicros, row.getLong(from + 2));
		}

	}

	/**
	 * Ends the hold and the call that a lease {@link #finishForNextClaim} returned kept
	 * under way, once its done's statement has returned or failed.
	 */
	void doneSent(Lease lease) {
		this.book.ended(lease);
		afterRelease();
	}

	/** Hands every lease back, unprocessed, each in its place in line. */
	int handBackAll() {
		this.lifecycle.enterAlways();
		try {
			List<Holding> all = this.book.finishAll();
			List<Lease> live = new ArrayList<>(all.size());
			for (Holding holding : all) {
				forgetWithoutDone(holding.lease);
				Lease lease = holding.live();
				if (lease != null) {
					live.add(lease);
				}
			}
			handBackInPlace(live);
			return all.size();
		}
		finally {
			afterRelease();
		}
	}

	/** Hands one held item back, ready after {@code delay}. */
	boolean handBack(Object item, Duration delay) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		this.lifecycle.enterAlways();
		try {
			@SuppressWarnings("unchecked")
			Holding holding = this.book.finish((T) item);
			if (holding == null) {
				return false;
			}
			forgetWithoutDone(holding.lease);
			Lease live = holding.live();
			if (live != null) {
				handBackAfter(live, (live == holding.parked) ? 0 : Math.max(0, Nanos.of(delay)));
			}
			return true;
		}
		finally {
			afterRelease();
		}
	}

	/**
	 * Ends a hold that was never handed out (claimed ahead, or claimed after shutdown):
	 * the item goes back in its place in line.
	 */
	void handBackUnused(T item) {
		this.lifecycle.enterAlways();
		try {
			Holding holding = this.book.finish(item);
			if (holding != null) {
				forgetWithoutDone(holding.lease);
			}
			Lease live = (holding != null) ? holding.live() : null;
			if (live != null) {
				handBackInPlace(List.of(live));
			}
		}
		finally {
			afterRelease();
		}
	}

	/**
	 * Hands leases back in their place in line; if that fails, remembers them for the
	 * keeper, so that no item stays leased to nobody while this handle lives.
	 * @throws PostgresQueueException the failure, once they are remembered
	 */
	void handBackInPlace(Collection<Lease> leases) {
		if (leases.isEmpty()) {
			return;
		}
		long[] tokens = leases.stream().mapToLong((lease) -> lease.token).toArray();
		try {
			int back = this.database.run("hand items back to", (connection) -> {
				try (PreparedStatement statement = connection.prepareStatement(this.sql.handBack)) {
					this.database.bindNow(statement);
					statement.setString(2, this.database.name());
					statement.setArray(3, QueueDatabase.bigints(connection, tokens));
					return statement.executeUpdate();
				}
			});
			this.rows.finished(back);
			if (back > 0) {
				this.signal.signal();
				this.notices.queued(0);
			}
		}
		catch (PostgresQueueException ex) {
			for (Lease lease : leases) {
				this.book.orphan(lease.token, lease.encoded);
			}
			this.orphaned.run();
			throw ex;
		}
	}

	/** Hands one lease back at the back of the line, ready after a delay. */
	private void handBackAfter(Lease lease, long delayNanos) {
		try {
			Long readyInMicros = this.database.run("hand an item back to", (connection) -> {
				try (PreparedStatement statement = connection.prepareStatement(this.sql.handBackAfter)) {
					this.database.bindNow(statement);
					statement.setString(2, this.database.name());
					statement.setLong(3, lease.token);
					statement.setLong(4, Delays.micros(delayNanos));
					try (ResultSet row = statement.executeQuery()) {
						return row.next() ? row.getLong(1) : null;
					}
				}
			});
			if (readyInMicros != null) {
				this.rows.finished(1);
				if (readyInMicros <= 0) {
					this.signal.signal();
					this.notices.queued(0);
				}
				else {
					this.signal.dueIn(readyInMicros * 1000);
					this.notices.queued(this.signal.storeMillis(readyInMicros));
				}
			}
		}
		catch (PostgresQueueException ex) {
			// In its place rather than after the delay: the keeper cannot wait.
			this.book.orphan(lease.token, lease.encoded);
			this.orphaned.run();
			throw ex;
		}
	}

	/** A drain may be waiting for the last hold to end. */
	private void afterRelease() {
		if (this.book.isEmpty()) {
			this.lifecycle.changed();
		}
		this.lifecycle.exit();
	}

}
