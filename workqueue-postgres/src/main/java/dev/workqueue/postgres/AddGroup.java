package dev.workqueue.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.BatchWriter;
import dev.workqueue.store.CallGroup;

/**
 * PostgreSQL's write of a handle's grouped adds that are not in a caller's transaction
 * ({@link CallGroup}): a batch of adds from many threads goes in one statement (rarely
 * more, below) and one commit, and each add returns only once the commit that holds it is
 * done (or throws that batch's failure; an item PostgreSQL cannot store fails only the
 * call that added it). The many adds of one call in a caller's transaction go in one such
 * statement too ({@link #writeInCallerTransaction}, from the caller's thread): its rows
 * are locked in item order, as a batch's, so that two transactions adding the same items
 * in other orders do not deadlock.
 * <p>
 * A statement holds each item once: adds of one item are merged first (the highest
 * priority, the earliest due time, their trace contexts in order), since an upsert may
 * not change one row twice; an add of an item of the other kind (now, after a delay) than
 * its adds before starts a second statement in the same transaction, so that the outcome
 * is that of the adds made one after the other ({@link MergedAdds}). A batch whose adds
 * carry no trace context runs the plain statement; one with any runs the traced one, in
 * which the adds without a context pass {@code null}.
 * <p>
 * A statement that queued items notifies the other instances in its own transaction,
 * once, with the earliest due time among them, however many adds it held: a notice sent
 * apart ({@link QueueNotices#queued}) would cost a commit of its own. The notice is
 * stamped with the handle's id ({@link QueueNotices#stamp}): the callers signal their own
 * consumers themselves (in a caller's transaction it is not,
 * {@link QueueNotices#unstamped}: the handle hears it at that commit). Every batch that
 * queued items notifies, also when the handle's own consumers wait: a count of them read
 * before the commit cannot promise that one of them takes the item (it may leave, be
 * woken for another, or skip the row while another instance's add of the item holds it
 * locked), and the consumers of the other instances would then sleep until their next
 * poll. What a batch does not queue needs no notice: while the handle's consumers wait
 * (reserved first, {@link AddLeases}), a batch without trace contexts runs the leasing
 * statement, which leases its first new ready items to the handle for them instead of
 * queuing them.
 * <p>
 * Should the commit fail because PostgreSQL's {@code NOTIFY} queue is full
 * ({@link SqlErrors#notifyQueueFull}), the statements run again once without notices, and
 * the notice is left to the handle's notice thread ({@link QueueNotices#queued}), which
 * logs its own failure: the others find the items at their next poll, and the adds
 * succeed, as when the notice was sent apart.
 * <p>
 * Thread-safe: the group writes one batch at a time, callers in their transactions write
 * their own, and this class keeps no state of its own beyond the statements.
 */
final class AddGroup implements BatchWriter<AddGroup.Request, Added> {

	/** Most adds in one statement. */
	static final int MAX_BATCH = 1000;

	/**
	 * One add.
	 *
	 * @param encoded the item's text
	 * @param priority its priority
	 * @param delayMicros its delay, 0 for none
	 * @param context the add's trace context, {@code null} for none; after a merge, the
	 * contexts of the merged adds as {@link QueueSql#addBatchTraced} takes them
	 */
	record Request(String encoded, int priority, long delayMicros, String context) {

		/**
		 * Merges a later add of the same item into this one: the higher priority, the
		 * earlier due time, and the later add's context after this one's, on a line of
		 * its own (after an empty first line when this one had none, whose contexts are
		 * then all links). At most {@code 1 + ItemTrace.MAX_LINKS} contexts are kept: the
		 * table keeps no more.
		 * @param later the later add
		 * @return the merged add
		 */
		Request merge(Request later) {
			return new Request(this.encoded, Math.max(this.priority, later.priority),
					Math.min(this.delayMicros, later.delayMicros), mergeContexts(this.context, later.context));
		}

		private static String mergeContexts(String first, String later) {
			if (later == null) {
				return first;
			}
			if (first == null) {
				return "\n" + later;
			}
			long lineBreaks = first.chars().filter((c) -> c == '\n').count();
			return (lineBreaks < ItemTrace.MAX_LINKS) ? first + "\n" + later : first;
		}

	}

	private final QueueDatabase database;

	private final SqlStatement sql;

	private final SqlStatement tracedSql;

	private final SqlStatement leasingSql;

	private final SqlStatement inCallerSql;

	private final SqlStatement tracedInCallerSql;

	/** Whether the queue hands out by priority (else by the order of the adds alone). */
	private final boolean byPriority;

	private final QueueNotices notices;

	private final AddLeases leases;

	AddGroup(QueueDatabase database, QueueSql sql, QueueNotices notices, AddLeases leases) {
		this.database = database;
		this.sql = sql.addBatch;
		this.tracedSql = sql.addBatchTraced;
		this.leasingSql = sql.addBatchLeasing;
		this.inCallerSql = sql.addBatchInCaller;
		this.tracedInCallerSql = sql.addBatchTracedInCaller;
		this.byPriority = sql.order == ReadyOrder.PRIORITY;
		this.notices = notices;
		this.leases = leases;
	}

	/**
	 * Writes one batch and gives every add its outcome. An item PostgreSQL cannot store
	 * (too long for the index, say) fails the statement that holds it: the batch then
	 * runs again one call at a time, so that it fails its own call only.
	 */
	@Override
	public void write(Batch<Request, Added> batch) {
		AddLeases.Pending leases = leasable(batch) ? this.leases.reserve() : this.leases.none();
		try {
			write(batch, null, leases);
		}
		catch (PostgresQueueException ex) {
			// The requests of one call are queued together, so they lie side by side.
			List<Object> calls = new ArrayList<>();
			for (int i = 0; i < batch.size(); i++) {
				Object call = batch.call(i);
				if (calls.isEmpty() || calls.get(calls.size() - 1) != call) {
					calls.add(call);
				}
			}
			if (ex.reason() != Reason.BAD_ITEM || calls.size() == 1) {
				throw ex;
			}
			for (Object call : calls) {
				try {
					// Without leases: an item in two calls of the batch would be
					// leased by the first and made dirty by the second.
					write(batch, call, this.leases.none());
				}
				catch (PostgresQueueException alone) {
					for (int i = 0; i < batch.size(); i++) {
						if (batch.call(i) == call) {
							batch.failed(i, alone);
						}
					}
				}
			}
		}
	}

	/**
	 * Writes the adds of one call, or of the whole batch ({@code call == null}), in one
	 * transaction, and gives each its outcome.
	 */
	private void write(Batch<Request, Added> batch, Object call, AddLeases.Pending leases) {
		List<Request> requests = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			if (call == null || batch.call(i) == call) {
				requests.add(batch.argument(i));
			}
		}
		MergedAdds merged = new MergedAdds(requests);
		List<Added> outcomes = merged.outcomes(upsertNotifying(merged.statements(), leases));
		int next = 0;
		for (int i = 0; i < batch.size(); i++) {
			if (call == null || batch.call(i) == call) {
				batch.written(i, outcomes.get(next++));
			}
		}
	}

	/**
	 * Writes the adds of one call in the caller's transaction, on its connection, in one
	 * statement: they line up in the order given and lock their rows in item order. Their
	 * notice rides in that transaction, and this handle hears it too: it cannot signal
	 * its own consumers before the commit. Nothing is leased: no item may be handed out
	 * before the commit.
	 * @param connection the caller's connection
	 * @param requests the adds of the call
	 * @return what each did, in order
	 * @throws SQLException if the statement fails
	 */
	List<Added> writeInCallerTransaction(Connection connection, List<Request> requests) throws SQLException {
		MergedAdds merged = new MergedAdds(requests);
		return merged.outcomes(added(upsert(connection, merged.statements(), true, this.notices.channel(),
				this.notices.unstamped(), this.leases.none())));
	}

	/**
	 * Whether the batch may lease an item: one of its adds is ready now, and none carries
	 * a trace context (such a batch runs traced, and its contexts go to the consumer
	 * through a claim).
	 */
	private static boolean leasable(Batch<Request, Added> batch) {
		boolean ready = false;
		for (int i = 0; i < batch.size(); i++) {
			if (batch.argument(i).context() != null) {
				return false;
			}
			ready |= batch.argument(i).delayMicros() == 0;
		}
		return ready;
	}

	@Override
	public RuntimeException failure(Throwable cause) {
		if (cause instanceof PostgresQueueException known) {
			return new PostgresQueueException(known.reason(), known.getMessage(), known.getCause());
		}
		return new PostgresQueueException(Reason.UNREACHABLE, this.database.what("add to") + ": " + cause, cause);
	}

	/**
	 * Runs the batch's statements with their notices; should the commit fail on a notice
	 * (a full {@code NOTIFY} queue: nothing was committed), runs them once more without,
	 * and asks the notice thread for one.
	 */
	private List<Map<String, Added>> upsertNotifying(List<Collection<Request>> statements, AddLeases.Pending leases) {
		String channel = this.notices.channel();
		try {
			return upsert(statements, channel, leases);
		}
		catch (PostgresQueueException ex) {
			if (channel == null || !(ex.getCause() instanceof SQLException cause)
					|| !SqlErrors.notifyQueueFull(cause)) {
				throw ex;
			}
		}
		List<Map<String, Added>> results = upsert(statements, null, leases);
		long dueMillis = results.stream()
			.flatMap((added) -> added.values().stream())
			.mapToLong(Added::noticeDueMillis)
			.filter((due) -> due >= 0)
			.min()
			.orElse(-1);
		if (dueMillis >= 0) {
			this.notices.queued(dueMillis);
		}
		return results;
	}

	/**
	 * Runs the statements in one transaction of the handle's own, and gives
	 * {@code leases} the items the first leased once it is committed.
	 */
	private List<Map<String, Added>> upsert(List<Collection<Request>> statements, String channel,
			AddLeases.Pending leases) {
		List<Upserted> upserted;
		try {
			upserted = this.database.run("add to",
					(connection) -> upsert(connection, statements, false, channel, this.notices.stamp(), leases));
		}
		catch (RuntimeException ex) {
			leases.failed();
			throw ex;
		}
		Map<String, Long> tokens = upserted.get(0).leased();
		if (!tokens.isEmpty()) {
			// In the queue's order, as a claim hands them out: the order of the adds
			// (seq), the highest priority first on a priority queue.
			List<Request> leased = new ArrayList<>();
			for (Request request : statements.get(0)) {
				if (tokens.containsKey(request.encoded())) {
					leased.add(request);
				}
			}
			if (this.byPriority) {
				leased.sort(Comparator.comparingInt(Request::priority).reversed());
			}
			for (Request request : leased) {
				leases.leased(request.encoded(), request.priority(), tokens.get(request.encoded()));
			}
		}
		return added(upserted);
	}

	/**
	 * Runs the statements on {@code connection}, one after the other in one transaction:
	 * only the first leases (a later add of an item it leased makes that item dirty, as
	 * when the adds are made one after the other).
	 */
	private List<Upserted> upsert(Connection connection, List<Collection<Request>> statements, boolean inCaller,
			String channel, String stamp, AddLeases.Pending leases) throws SQLException {
		if (statements.size() == 1) {
			return List.of(upsert(connection, statements.get(0), inCaller, channel, stamp, leases));
		}
		return QueueDatabase.inOneTransaction(connection, (transaction) -> {
			List<Upserted> upserted = new ArrayList<>(statements.size());
			for (Collection<Request> requests : statements) {
				upserted.add(upsert(transaction, requests, inCaller, channel, stamp,
						upserted.isEmpty() ? leases : this.leases.none()));
			}
			return upserted;
		});
	}

	private static List<Map<String, Added>> added(List<Upserted> upserted) {
		List<Map<String, Added>> added = new ArrayList<>(upserted.size());
		for (Upserted statement : upserted) {
			added.add(statement.added());
		}
		return added;
	}

	/**
	 * Runs the statement on {@code connection}, the caller's ({@code inCaller}: a
	 * statement that leaves its {@code synchronous_commit} alone) or the handle's: a
	 * notice on {@code channel} (none if {@code null}) whose payload ends with
	 * {@code stamp}, and leases for the consumers {@code leases} reserved.
	 */
	private Upserted upsert(Connection connection, Collection<Request> requests, boolean inCaller, String channel,
			String stamp, AddLeases.Pending leases) throws SQLException {
		String[] items = new String[requests.size()];
		Integer[] priorities = new Integer[items.length];
		Long[] delays = new Long[items.length];
		// Only a batch with a context has contexts to bind.
		String[] contexts = null;
		int i = 0;
		for (Request request : requests) {
			items[i] = request.encoded();
			priorities[i] = request.priority();
			delays[i] = request.delayMicros();
			if (request.context() != null) {
				if (contexts == null) {
					contexts = new String[items.length];
				}
				contexts[i] = request.context();
			}
			i++;
		}
		boolean traced = contexts != null;
		Map<String, Added> results = new HashMap<>();
		Map<String, Long> leased = new HashMap<>();
		// Only a batch without contexts leases (a traced item's contexts go to its
		// consumer through a claim), and only while consumers are reserved for it.
		boolean leasing = !traced && leases.left() > 0;
		SqlStatement sql;
		if (inCaller) {
			sql = traced ? this.tracedInCallerSql : this.inCallerSql;
		}
		else {
			sql = traced ? this.tracedSql : (leasing ? this.leasingSql : this.sql);
		}
		try (PreparedStatement statement = sql.prepare(connection)) {
			Array itemArray = connection.createArrayOf("text", items);
			Array priorityArray = connection.createArrayOf("integer", priorities);
			Array delayArray = connection.createArrayOf("bigint", delays);
			this.database.bindNow(sql, statement);
			sql.setString(statement, "queue", this.database.name());
			sql.setArray(statement, "items", itemArray);
			sql.setArray(statement, "priorities", priorityArray);
			sql.setArray(statement, "delays", delayArray);
			if (traced) {
				sql.setArray(statement, "traces", connection.createArrayOf("text", contexts));
			}
			if (leasing) {
				leases.bind(sql, statement);
			}
			// A null channel sends no notice.
			sql.setString(statement, "channel", channel);
			sql.setString(statement, "stamp", stamp);
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					results.put(rows.getString(1), Added.read(rows, 2, traced));
					if (leasing) {
						long token = rows.getLong(7);
						if (!rows.wasNull()) {
							leased.put(rows.getString(1), token);
						}
					}
				}
			}
		}
		return new Upserted(results, leased);
	}

	/**
	 * What one add statement did: each item's outcome, and the tokens of the items it
	 * leased to the handle.
	 */
	private record Upserted(Map<String, Added> added, Map<String, Long> leased) {

	}

}
