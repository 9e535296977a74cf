package dev.workqueue.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.ReleaseDriver;

/**
 * How PostgreSQL ends leases, for the engine's {@link LeaseReleases}: {@code done} (one
 * statement that deletes the row, or queues it again when it was added meanwhile, and
 * deletes the history deferred to the lease; it names the lease's token, so a lost
 * lease's done changes nothing), hand-backs of one lease or many, and the forget of
 * history deferred to a hold that ends without a done. Here too is how a done is bound
 * into a statement and what it did, for the claim that carries a done
 * ({@link ItemTaker}). Thread-safe: it keeps no state of its own.
 */
final class ReleaseStatements implements ReleaseDriver<PostgresLease> {

	private final QueueDatabase database;

	private final QueueSql sql;

	private final ReadySignal signal;

	private final QueueNotices notices;

	private final FinishedRows rows;

	ReleaseStatements(QueueDatabase database, QueueSql sql, ReadySignal signal, QueueNotices notices,
			FinishedRows rows) {
		this.database = database;
		this.sql = sql;
		this.signal = signal;
		this.notices = notices;
		this.rows = rows;
	}

	/**
	 * Ends a lease alone: one done statement; the others hear of an item it queued again.
	 */
	@Override
	public void done(PostgresLease lease) {
		Ended ended = this.database.run("mark an item done in", (connection) -> {
			try (PreparedStatement statement = this.sql.done.prepare(connection)) {
				this.database.bindNow(this.sql.done, statement);
				bindDone(this.sql.done, statement, lease);
				try (ResultSet row = statement.executeQuery()) {
					row.next();
					return Ended.read(row, 1);
				}
			}
		});
		ended(ended);
	}

	/**
	 * Binds the parameters of a done into {@code sql} (a done, or a claim that carries
	 * one): the queue, the item and the token of the row to end, and the kinds of history
	 * forgotten while it was held.
	 */
	void bindDone(SqlStatement sql, PreparedStatement statement, PostgresLease lease) throws SQLException {
		sql.setString(statement, "queue", this.database.name());
		sql.setString(statement, "item", lease.encoded());
		sql.setLong(statement, "token", lease.token);
		sql.setArray(statement, "kinds", statement.getConnection().createArrayOf("text", lease.forgets()));
	}

	/**
	 * Forgets, on its own, the history deferred to a hold that ends without a done (see
	 * {@link Forgets}).
	 */
	@Override
	public void forget(PostgresLease lease) {
		this.database.run("forget the history of an item of", (connection) -> {
			try (PreparedStatement statement = this.sql.forget.prepare(connection)) {
				this.sql.forget.setArray(statement, "kinds", connection.createArrayOf("text", lease.forgets()));
				this.sql.forget.setString(statement, "queue", this.database.name());
				this.sql.forget.setString(statement, "item", lease.encoded());
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

	/** Hands leases back in their place in line, in one statement. */
	@Override
	public void handBackInPlace(List<PostgresLease> leases) {
		long[] tokens = leases.stream().mapToLong((lease) -> lease.token).toArray();
		int back = this.database.run("hand items back to", (connection) -> {
			try (PreparedStatement statement = this.sql.handBack.prepare(connection)) {
				this.database.bindNow(this.sql.handBack, statement);
				this.sql.handBack.setString(statement, "queue", this.database.name());
				this.sql.handBack.setArray(statement, "tokens", QueueDatabase.bigints(connection, tokens));
				return statement.executeUpdate();
			}
		});
		this.rows.finished(back);
		if (back > 0) {
			this.signal.signal();
			this.notices.queued(0);
		}
	}

	/** Hands one lease back at the back of the line, ready after a delay. */
	@Override
	public void handBack(PostgresLease lease, long delayNanos) {
		Long readyInMicros = this.database.run("hand an item back to", (connection) -> {
			try (PreparedStatement statement = this.sql.handBackAfter.prepare(connection)) {
				this.database.bindNow(this.sql.handBackAfter, statement);
				this.sql.handBackAfter.setString(statement, "queue", this.database.name());
				this.sql.handBackAfter.setLong(statement, "token", lease.token);
				this.sql.handBackAfter.setLong(statement, "delay", Delays.micros(delayNanos));
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

}
