package dev.workqueue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import dev.workqueue.postgres.AddGroup.Request;
import dev.workqueue.store.CallGroup;
import dev.workqueue.store.CallerLinger;
import dev.workqueue.store.ReadySignal;

/**
 * How a handle's adds reach the table: inside the caller's transaction when the calling
 * thread has one open, else grouped with the handle's concurrent adds into one commit
 * ({@link CallGroup}, {@link AddGroup}), which may lease new ready items to the handle's
 * waiting consumers directly ({@link AddLeases}: taken in hand here, after the group
 * call, by each thread that wrote a batch). After its own commit the handle wakes a local
 * consumer for each item it made ready, and the other instances hear of the commit
 * through one notice sent in the same transaction ({@link AddGroup}; from the notice
 * thread after the commit should PostgreSQL's {@code NOTIFY} queue be full), which this
 * handle does not hear. An add in the caller's transaction wakes nobody here before that
 * transaction commits: its {@code NOTIFY} rides in the same transaction and comes back
 * through {@code LISTEN} once it commits, to this handle too (poll-only: the next poll
 * finds it).
 * <p>
 * An add with a trace context runs the traced variant of its statement
 * ({@link QueueSql#addTraced}), which may write only the context into a queued item's
 * row: such a write wakes nobody (it did not {@linkplain Added#changed() change} the
 * item's place) but counts as a row version left dead.
 * <p>
 * Thread-safe.
 */
final class ItemAdds {

	private final DataSource adds;

	/** Whether the caller's transaction is open; {@code null}: ask the connection. */
	private final BooleanSupplier callerTransaction;

	private final QueueDatabase database;

	private final QueueSql sql;

	private final AddGroup batches;

	private final CallGroup<Request, Added> group;

	private final QueueNotices notices;

	private final ReadySignal signal;

	private final FinishedRows rows;

	private final AddLeases leases;

	ItemAdds(DataSource adds, BooleanSupplier callerTransaction, QueueDatabase database, QueueSql sql,
			QueueNotices notices, ReadySignal signal, FinishedRows rows, AddLeases leases) {
		this.adds = adds;
		this.callerTransaction = callerTransaction;
		this.database = database;
		this.sql = sql;
		this.leases = leases;
		this.batches = new AddGroup(database, sql, notices, leases);
		this.group = new CallGroup<>(AddGroup.MAX_BATCH, this.batches, new CallerLinger());
		this.notices = notices;
		this.signal = signal;
		this.rows = rows;
	}

	/**
	 * Adds items.
	 * @param requests the adds of one call, encoded and checked, all with the same trace
	 * context (or none)
	 * @return what each did, in order
	 */
	List<Added> add(List<Request> requests) {
		// Before the caller's connection is taken: the check takes one of its own.
		this.database.ensureMark("add to");
		List<Added> results = (this.callerTransaction != null) ? addAs(this.callerTransaction.getAsBoolean(), requests)
				: addOnConnection(requests);
		if (results == null) {
			try {
				results = this.group.callAll(requests);
			}
			finally {
				// The items the batches this thread wrote leased for the consumers.
				this.leases.takeInHand();
			}
			for (Added added : results) {
				announce(added);
			}
		}
		for (Added added : results) {
			if (added.written()) {
				this.rows.finished(1);
			}
		}
		return results;
	}

	private List<Added> addAs(boolean inCallerTransaction, List<Request> requests) {
		if (!inCallerTransaction) {
			return null;
		}
		try (Connection connection = this.adds.getConnection()) {
			return inCallerTransaction(connection, requests);
		}
		catch (SQLException ex) {
			throw this.database.failure(ex, "add to");
		}
	}

	/**
	 * The default rule: a connection with auto-commit off is the caller's transaction.
	 * @return the results, or {@code null} to add outside any transaction
	 */
	private List<Added> addOnConnection(List<Request> requests) {
		try (Connection connection = this.adds.getConnection()) {
			if (connection.getAutoCommit()) {
				return null;
			}
			return inCallerTransaction(connection, requests);
		}
		catch (SQLException ex) {
			throw this.database.failure(ex, "add to");
		}
	}

	/**
	 * Runs the adds on the caller's connection, in its transaction: never committed,
	 * rolled back or closed with a commit here (closing gives a transaction-aware
	 * connection back to its transaction). One add runs its own statement; many go in one
	 * batch statement ({@link AddGroup#writeInCallerTransaction}), which locks their rows
	 * in item order: were each run in turn, a call adding b and a would hold b while it
	 * waits for a transaction that added a and then adds b, and the server would roll one
	 * of the two back.
	 */
	private List<Added> inCallerTransaction(Connection connection, List<Request> requests) {
		try {
			return inTransaction(connection, requests);
		}
		catch (SQLException ex) {
			throw new CallerTransactionFailure(this.database.failure(ex, "add to"));
		}
	}

	private List<Added> inTransaction(Connection connection, List<Request> requests) throws SQLException {
		if (requests.size() > 1) {
			return this.batches.writeInCallerTransaction(connection, requests);
		}
		Request request = requests.get(0);
		String channel = this.notices.channel();
		boolean traced = request.context() != null;
		SqlStatement sql = traced ? this.sql.addTraced : this.sql.add;
		try (PreparedStatement statement = sql.prepare(connection)) {
			this.database.bindNow(sql, statement);
			sql.setString(statement, "queue", this.database.name());
			sql.setString(statement, "item", request.encoded());
			sql.setInt(statement, "priority", request.priority());
			sql.setLong(statement, "delay", request.delayMicros());
			if (traced) {
				sql.setString(statement, "trace", request.context());
			}
			// A null channel (a handle that does not listen) sends no notice.
			String payload = null;
			if (channel != null) {
				long delay = request.delayMicros();
				payload = this.notices.payload((delay > 0) ? this.signal.storeMillis(delay) : 0);
			}
			sql.setString(statement, "channel", channel);
			sql.setString(statement, "payload", payload);
			try (ResultSet row = statement.executeQuery()) {
				return List.of(row.next() ? Added.read(row, 1, traced) : Added.UNCHANGED);
			}
		}
	}

	/**
	 * After this handle's own commit: a local consumer looks (the others hear of the
	 * commit from its notice).
	 */
	private void announce(Added added) {
		if (!added.changed() || !added.queued()) {
			return;
		}
		if (added.ready()) {
			this.signal.signal();
		}
		else {
			this.signal.dueIn((added.readyAtMicros() - added.nowMicros()) * 1000);
		}
	}

}
