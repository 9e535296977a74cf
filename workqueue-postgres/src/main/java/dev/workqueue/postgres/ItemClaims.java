package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Lock;

import dev.workqueue.postgres.ReleaseStatements.Ended;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.ClaimDriver;
import dev.workqueue.store.ReadySignal;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a PostgreSQL handle claims items for the engine's
 * {@link dev.workqueue.store.ItemTaker}: one statement ({@link QueueSql#claim}, or
 * {@link QueueSql#doneAndClaim} carrying the owed dones of the consumers whose look it
 * is) leases up to {@link QueueSql#claimLimit} rows to this handle, each under its own
 * token.
 * <p>
 * A claim that fails may still have leased items (the answer was lost after the commit):
 * their rows name this handle as holder, so the {@link LeaseKeeper} finds them and hands
 * them back. A claim holds {@code claims} (shared) from before it is sent until its
 * leases are in the book ({@link Claim#taken}), so that the keeper (which takes it
 * exclusively) never mistakes them for lost ones. A claim whose leases must be confirmed
 * renews them all in one statement ({@link LeaseRenewal}); if that fails, none is handed
 * out and the keeper hands them back, as a lost claim's.
 * <p>
 * Thread-safe: it keeps no state; each claim's answer is its consumer's.
 */
final class ItemClaims implements ClaimDriver<PostgresLease> {

	private static final System.Logger logger = System.getLogger(ItemClaims.class.getName());

	private final QueueDatabase database;

	private final QueueSql sql;

	private final LeaseRenewal renewal;

	private final ReleaseStatements statements;

	private final ReadySignal signal;

	private final Clock clock;

	private final FinishedRows rows;

	private final DeadLetters deadLetters;

	private final Lock claims;

	private final QueueNotices notices;

	/** Called after a claim failed: the keeper looks for what it may have leased. */
	private final Runnable failedClaim;

	private final String holder;

	private final long leaseNanos;

	/** The starvation timeout in µs, or -1 for none. */
	private final long starvationMicros;

	ItemClaims(QueueDatabase database, QueueSql sql, LeaseRenewal renewal, ReleaseStatements statements,
			ReadySignal signal, Clock clock, FinishedRows rows, DeadLetters deadLetters, Lock claims,
			QueueNotices notices, Runnable failedClaim, String holder, long leaseNanos, long starvationMicros) {
		this.database = database;
		this.sql = sql;
		this.renewal = renewal;
		this.statements = statements;
		this.signal = signal;
		this.clock = clock;
		this.rows = rows;
		this.deadLetters = deadLetters;
		this.claims = claims;
		this.notices = notices;
		this.failedClaim = failedClaim;
		this.holder = holder;
		this.leaseNanos = leaseNanos;
		this.starvationMicros = starvationMicros;
	}

	@Override
	public int claimLimit() {
		return this.sql.claimLimit;
	}

	@Override
	public Claim<PostgresLease> claim(int count, List<PostgresLease> owedDones, long sentNanos) {
		// Subscribed before the look, so that an add the look misses is heard of (or
		// made up for by the look the LISTEN owes a new subscriber).
		this.notices.consuming();
		this.claims.lock();
		try {
			Answer answer = send(count, owedDones, sentNanos);
			if (answer.ended != null && answer.ended.skippedAny()) {
				// It claimed none: its items would wait for these dones or forgets, which
				// wait for another transaction. They end before the claim returns (the
				// engine takes the dones as ended then), and a claim of its own follows.
				this.statements.endSkipped(owedDones, answer.ended);
				answer = send(count, List.of(), sentNanos);
			}
			return answer;
		}
		catch (RuntimeException ex) {
			if (ex instanceof PostgresQueueException) {
				this.failedClaim.run();
			}
			// The engine unlocks only at taken(): the keeper's reconcile would wait for
			// ever.
			this.claims.unlock();
			throw ex;
		}
	}

	/**
	 * Sends one claim statement, carrying {@code owedDones} if any, and takes its answer.
	 */
	private Answer send(int count, List<PostgresLease> owedDones, long sentNanos) {
		boolean withDones = !owedDones.isEmpty();
		Answer answer = this.database.run("take from", (connection) -> {
			SqlStatement sql = withDones ? this.sql.doneAndClaim : this.sql.claim;
			try (PreparedStatement statement = sql.prepare(connection)) {
				this.database.bindNow(sql, statement);
				if (withDones) {
					this.statements.bindDones(sql, statement, owedDones);
				}
				bindClaim(sql, statement, count);
				try (ResultSet rows = statement.executeQuery()) {
					return read(rows, withDones, sentNanos);
				}
			}
		});
		this.signal.measured(answer.nowMicros, this.clock.nanoTime());
		this.rows.finished(answer.rows.size());
		if (answer.ended != null) {
			this.statements.ended(answer.ended);
		}
		return answer;
	}

	@Override
	public String who() {
		return "Queue '" + this.database.name() + "'";
	}

	@Override
	public long deadLettered() {
		return this.deadLetters.moved();
	}

	/**
	 * Starts the answer for the leases an add statement of this handle may make for its
	 * waiting consumers ({@link AddLeases}): holds {@code claims} (shared) from before
	 * the statement is sent until its leases are in the book ({@link Claim#taken}), as a
	 * claim does, so that the keeper never mistakes them for lost ones.
	 * @return the answer to fill with the add's leases
	 */
	Answer addAnswer() {
		long sentNanos = this.clock.nanoTime();
		this.claims.lock();
		return new Answer(sentNanos);
	}

	/**
	 * Binds an add statement's leases for this handle: at most {@code limit} items, under
	 * its holder id and lease.
	 * @param sql the add statement
	 * @param statement the statement to bind
	 * @param limit the most items to lease, at least 1
	 * @throws SQLException if a parameter cannot be bound
	 */
	void bindAddLeases(SqlStatement sql, PreparedStatement statement, int limit) throws SQLException {
		sql.setInt(statement, "lease_limit", limit);
		sql.setString(statement, "holder", this.holder);
		sql.setLong(statement, "lease", Delays.micros(this.leaseNanos));
	}

	/**
	 * An add that may have leased items failed: the keeper looks for what it may have
	 * leased, as after a failed claim.
	 */
	void addFailed() {
		this.failedClaim.run();
	}

	private void bindClaim(SqlStatement sql, PreparedStatement statement, int count) throws SQLException {
		sql.setString(statement, "queue", this.database.name());
		if (this.starvationMicros >= 0) {
			sql.setLong(statement, "starvation", this.starvationMicros);
		}
		sql.setInt(statement, "limit", count);
		sql.setString(statement, "holder", this.holder);
		sql.setLong(statement, "lease", Delays.micros(this.leaseNanos));
	}

	private Answer read(ResultSet rows, boolean withDone, long sentNanos) throws SQLException {
		Answer answer = new Answer(sentNanos);
		while (rows.next()) {
			String encoded = rows.getString(1);
			if (encoded != null) {
				answer.rows.add(new Row(encoded, rows.getInt(2), rows.getLong(3), rows.getLong(4), rows.getString(5)));
			}
			long due = rows.getLong(6);
			answer.dueInMicros = rows.wasNull() ? null : due;
			answer.nowMicros = rows.getLong(7);
			if (withDone) {
				long deleted = rows.getLong(8);
				long backAt = rows.getLong(9);
				answer.ended = new Ended(deleted, rows.wasNull() ? null : backAt, answer.nowMicros,
						Ended.skippedTokens(rows, 10), Ended.unforgotten(rows, 11));
			}
		}
		return answer;
	}

	/** One item a claim leased, with its trace record ({@code null} for none). */
	private record Row(String encoded, int priority, long token, long queuedMicros, String trace) {

	}

	/**
	 * A claim's answer: the items leased in hand-out order, the time until the earliest
	 * waiting item is due ({@code null} if none), the statement's time, what the dones
	 * that rode with it did ({@code null} if none did), and the leases confirmed so far.
	 */
	final class Answer implements Claim<PostgresLease> {

		final List<Row> rows = new ArrayList<>();

		/** When the statement was sent, on the clock. */
		final long sentNanos;

		Long dueInMicros;

		long nowMicros;

		Ended ended;

		/**
		 * Until when the leases surely hold, on the clock: from the claim or its renewal.
		 */
		private long validUntilNanos;

		/** The tokens renewed; {@code null} until a lease is confirmed. */
		private Set<Long> renewed;

		Answer(long sentNanos) {
			this.sentNanos = sentNanos;
			this.validUntilNanos = Nanos.add(sentNanos, ItemClaims.this.leaseNanos);
		}

		/**
		 * Adds an item an add statement leased: ready when it was added, so queued for no
		 * time, and without trace contexts (a traced add leases none).
		 * @param encoded the item
		 * @param priority its priority
		 * @param token its lease's token
		 */
		void leasedByAdd(String encoded, int priority, long token) {
			this.rows.add(new Row(encoded, priority, token, 0, null));
		}

		@Override
		public int size() {
			return this.rows.size();
		}

		@Override
		public String encoded(int n) {
			return this.rows.get(n).encoded();
		}

		@Override
		public int priority(int n) {
			return this.rows.get(n).priority();
		}

		@Override
		public long queuedNanos(int n) {
			return this.rows.get(n).queuedMicros() * 1000;
		}

		@Override
		public ItemTrace trace(int n) {
			String trace = this.rows.get(n).trace();
			return (trace != null) ? ItemTrace.fromRecord(trace) : null;
		}

		@Override
		public long dueInNanos() {
			return (this.dueInMicros != null) ? this.dueInMicros * 1000 : -1;
		}

		@Override
		public PostgresLease lease(int n, long nowNanos) {
			Row row = this.rows.get(n);
			return new PostgresLease(row.encoded(), row.token(), nowNanos, this.validUntilNanos);
		}

		/**
		 * Renews, the first time, the leases of the rows from {@code n} on in one
		 * statement; an item whose lease was not renewed is not handed out: its row was
		 * queued again (and maybe leased to another). If the renewal fails, none is
		 * handed out, and the keeper hands the rows back as those of a claim whose answer
		 * was lost.
		 */
		@Override
		public boolean confirm(int n, long elapsedNanos) {
			if (this.renewed == null) {
				long[] tokens = this.rows.subList(n, this.rows.size()).stream().mapToLong(Row::token).toArray();
				long renewedNanos = ItemClaims.this.clock.nanoTime();
				try {
					this.renewed = ItemClaims.this.renewal.renew(tokens);
				}
				catch (PostgresQueueException ex) {
					this.renewed = Set.of();
					ItemClaims.this.failedClaim.run();
					return false;
				}
				this.validUntilNanos = Nanos.add(renewedNanos, ItemClaims.this.leaseNanos);
				if (this.renewed.size() < tokens.length) {
					logger.log(Level.WARNING,
							who() + " did not hand out " + (tokens.length - this.renewed.size())
									+ " item(s) taken in hand " + Duration.ofNanos(elapsedNanos)
									+ " after their claim was sent, with a lease of "
									+ Duration.ofNanos(ItemClaims.this.leaseNanos) + ": "
									+ "their lease ran out meanwhile (another instance may hold them)");
				}
			}
			return this.renewed.contains(this.rows.get(n).token());
		}

		@Override
		public void deadLetter(int n, Throwable cause) {
			Row row = this.rows.get(n);
			ItemClaims.this.deadLetters.moveAside(new PostgresLease(row.encoded(), row.token(),
					ItemClaims.this.clock.nanoTime(), this.validUntilNanos), cause);
		}

		@Override
		public void taken() {
			ItemClaims.this.claims.unlock();
		}

	}

}
