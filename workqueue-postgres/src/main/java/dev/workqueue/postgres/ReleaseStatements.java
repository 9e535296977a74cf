package dev.workqueue.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workqueue.store.LeaseReleases;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.store.ReleaseDriver;

/**
 * How PostgreSQL ends leases, for the engine's {@link LeaseReleases}: {@code done} (one
 * statement for the dones of a group, that deletes each row, or queues it again when it
 * was added meanwhile, and deletes the history deferred to each lease; it names each
 * lease's token, so a lost lease's done changes nothing), hand-backs of one lease or
 * many, and the forget of history deferred to a hold that ends without a done. Here too
 * is how a done is bound into a statement and what it did, for the claim that carries a
 * done ({@link ItemClaims}). Thread-safe: it keeps no state of its own.
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
	 * Ends leases, the dones of a group: one done statement and commit, which skips the
	 * rows another transaction locks (an application's, or an add's), then one statement
	 * each for those, which waits for its row (holding no other); the others hear of the
	 * items they queued again.
	 */
	@Override
	public void done(List<PostgresLease> leases) {
		Ended ended = this.database.run("mark items done in", (connection) -> {
			try (PreparedStatement statement = this.sql.done.prepare(connection)) {
				this.database.bindNow(this.sql.done, statement);
				bindDones(this.sql.done, statement, leases);
				try (ResultSet row = statement.executeQuery()) {
					row.next();
					return Ended.read(row, 1, 4, 5);
				}
			}
		});
		ended(ended);
		endSkipped(leases, ended);
	}

	/**
	 * Ends, each in a statement of its own that waits for its row, the leases of
	 * {@code leases} whose rows a done statement skipped (locked by another transaction),
	 * then forgets the history whose rows it skipped: a statement that waits holds no
	 * other row, so it cannot deadlock with that transaction, nor keep the group's other
	 * dones waiting.
	 */
	void endSkipped(List<PostgresLease> leases, Ended ended) {
		for (PostgresLease lease : leases) {
			if (ended.skipped(lease.token)) {
				ended(this.database.run("mark an item done in", (connection) -> {
					try (PreparedStatement statement = this.sql.doneWaiting.prepare(connection)) {
						this.database.bindNow(this.sql.doneWaiting, statement);
						this.sql.doneWaiting.setString(statement, "queue", this.database.name());
						this.sql.doneWaiting.setString(statement, "item", lease.encoded());
						this.sql.doneWaiting.setLong(statement, "token", lease.token);
						try (ResultSet row = statement.executeQuery()) {
							row.next();
							return Ended.read(row, 1, 0, 0);
						}
					}
				}));
			}
		}
		ended.unforgotten().forEach(this::forget);
	}

	/**
	 * Binds the parameters of dones into {@code sql} (a done, or a claim that carries
	 * them): the queue, the items and the tokens of the rows to end, and the (item, kind)
	 * pairs of history forgotten while they were held, as parallel arrays.
	 */
	void bindDones(SqlStatement sql, PreparedStatement statement, List<PostgresLease> leases) throws SQLException {
		Connection connection = statement.getConnection();
		String[] items = new String[leases.size()];
		long[] tokens = new long[items.length];
		List<String> forgetItems = new ArrayList<>();
		List<String> forgetKinds = new ArrayList<>();
		for (int n = 0; n < items.length; n++) {
			PostgresLease lease = leases.get(n);
			items[n] = lease.encoded();
			tokens[n] = lease.token;
			for (String kind : lease.forgets()) {
				forgetItems.add(lease.encoded());
				forgetKinds.add(kind);
			}
		}
		sql.setString(statement, "queue", this.database.name());
		sql.setArray(statement, "items", connection.createArrayOf("text", items));
		sql.setArray(statement, "tokens", QueueDatabase.bigints(connection, tokens));
		sql.setArray(statement, "forget_items", connection.createArrayOf("text", forgetItems.toArray()));
		sql.setArray(statement, "forget_kinds", connection.createArrayOf("text", forgetKinds.toArray()));
	}

	/**
	 * Forgets, on its own, the history deferred to a hold that ends without a done (see
	 * {@link Forgets}).
	 */
	@Override
	public void forget(PostgresLease lease) {
		forget(lease.encoded(), List.of(lease.forgets()));
	}

	/** Deletes the history of {@code kinds} of an item, in a statement of its own. */
	private void forget(String encoded, List<String> kinds) {
		this.database.run("forget the history of an item of", (connection) -> {
			try (PreparedStatement statement = this.sql.forget.prepare(connection)) {
				this.sql.forget.setArray(statement, "kinds", connection.createArrayOf("text", kinds.toArray()));
				this.sql.forget.setString(statement, "queue", this.database.name());
				this.sql.forget.setString(statement, "item", encoded);
				return statement.executeUpdate();
			}
		});
	}

	/** What dones did; the others hear of the items they queued again. */
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
	 * What the dones of a statement did.
	 *
	 * @param deleted the rows they deleted (a lost lease deletes none)
	 * @param backAtMicros when the earliest item they queued again is ready (µs since the
	 * epoch), or {@code null} if none was added meanwhile
	 * @param nowMicros the statement's time
	 * @param skippedTokens the tokens of the leases whose rows it skipped, locked by
	 * another transaction, sorted
	 * @param unforgotten the kinds of history, by item, whose rows it skipped, locked by
	 * another transaction (a count of the item's failures)
	 */
	record Ended(long deleted, Long backAtMicros, long nowMicros, long[] skippedTokens,
			Map<String, List<String>> unforgotten) {

		private static final long[] NONE = new long[0];

		/**
		 * Reads the columns at {@code from}: deleted, back at, now; the skipped tokens at
		 * {@code skippedAt} and the unforgotten items and kinds at {@code unforgottenAt}
		 * and after (0: the statement skips none).
		 */
		static Ended read(ResultSet row, int from, int skippedAt, int unforgottenAt) throws SQLException {
			long deleted = row.getLong(from);
			long backAt = row.getLong(from + 1);
			Long backAtMicros = row.wasNull() ? null : backAt;
			return new Ended(deleted, backAtMicros, row.getLong(from + 2),
					(skippedAt > 0) ? skippedTokens(row, skippedAt) : NONE,
					(unforgottenAt > 0) ? unforgotten(row, unforgottenAt) : Map.of());
		}

		/** Reads the skipped tokens, an array column ({@code null} for none). */
		static long[] skippedTokens(ResultSet row, int at) throws SQLException {
			Array tokens = row.getArray(at);
			return (tokens != null) ? Arrays.stream((Long[]) tokens.getArray()).mapToLong(Long::longValue).toArray()
					: NONE;
		}

		/**
		 * Reads the unforgotten history, parallel array columns of items and kinds
		 * ({@code null} for none).
		 */
		static Map<String, List<String>> unforgotten(ResultSet row, int at) throws SQLException {
			Array items = row.getArray(at);
			if (items == null) {
				return Map.of();
			}
			String[] kinds = (String[]) row.getArray(at + 1).getArray();
			Map<String, List<String>> unforgotten = new LinkedHashMap<>();
			String[] encoded = (String[]) items.getArray();
			for (int n = 0; n < encoded.length; n++) {
				unforgotten.computeIfAbsent(encoded[n], (item) -> new ArrayList<>()).add(kinds[n]);
			}
			return unforgotten;
		}

		/** Whether the statement skipped the lease of {@code token}. */
		boolean skipped(long token) {
			return this.skippedTokens.length > 0 && Arrays.binarySearch(this.skippedTokens, token) >= 0;
		}

		/**
		 * Whether the statement skipped rows another transaction locks, to be ended or
		 * forgotten by {@link ReleaseStatements#endSkipped}.
		 */
		boolean skippedAny() {
			return this.skippedTokens.length > 0 || !this.unforgotten.isEmpty();
		}

	}

	/**
	 * Hands leases back in their place in line, in one statement, which skips the rows
	 * another transaction locks: waiting for an application's commit would hold up the
	 * consumer or keeper that hands back.
	 * @return the leases whose rows it skipped, for the keeper to hand back later
	 */
	@Override
	public List<PostgresLease> handBackInPlace(List<PostgresLease> leases) {
		long[] tokens = leases.stream().mapToLong((lease) -> lease.token).toArray();
		HandedBack handed = this.database.run("hand items back to", (connection) -> {
			try (PreparedStatement statement = this.sql.handBack.prepare(connection)) {
				this.database.bindNow(this.sql.handBack, statement);
				this.sql.handBack.setString(statement, "queue", this.database.name());
				this.sql.handBack.setArray(statement, "tokens", QueueDatabase.bigints(connection, tokens));
				try (ResultSet row = statement.executeQuery()) {
					row.next();
					return new HandedBack(row.getInt(1), Ended.skippedTokens(row, 2));
				}
			}
		});
		this.rows.finished(handed.back());
		if (handed.back() > 0) {
			this.signal.signal();
			this.notices.queued(0);
		}
		if (handed.skippedTokens().length == 0) {
			return List.of();
		}
		return leases.stream()
			.filter((lease) -> Arrays.binarySearch(handed.skippedTokens(), lease.token) >= 0)
			.toList();
	}

	/**
	 * What a hand-back statement did.
	 *
	 * @param back the rows it queued again
	 * @param skippedTokens the tokens of the leases whose rows it skipped, sorted
	 */
	private record HandedBack(int back, long[] skippedTokens) {

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
