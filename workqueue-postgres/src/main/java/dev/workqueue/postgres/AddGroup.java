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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.BatchWriter;
import dev.workqueue.store.CallGroup;

/**
 * PostgreSQL's write of a handle's grouped adds that are not in a caller's transaction
 * ({@link CallGroup}): a batch of adds from many threads goes in one statement and one
 * commit, and each add returns only once the commit that holds it is done (or throws that
 * batch's failure; an item PostgreSQL cannot store fails only the call that added it).
 * The many adds of one call in a caller's transaction go in one such statement too
 * ({@link #writeInCallerTransaction}): its rows are locked in item order, as a batch's,
 * so that two transactions adding the same items in other orders do not deadlock.
 * <p>
 * A batch holds each item once: adds of one item are merged first (the highest priority,
 * the earliest due time, their trace contexts in order), since an upsert may not change
 * one row twice. A batch whose adds carry no trace context runs the plain statement; one
 * with any runs the traced one, in which the adds without a context pass {@code null}.
 * <p>
 * A statement that queued items notifies the other instances in its own transaction,
 * once, with the earliest due time among them, however many adds it held: a notice sent
 * apart ({@link QueueNotices#queued}) would cost a commit of its own. The notice is
 * stamped with the handle's id ({@link QueueNotices#stamp}): the callers signal their own
 * consumers themselves. Every batch that queued items notifies, also when the handle's
 * own consumers wait: a count of them read before the commit cannot promise that one of
 * them takes the item (it may leave, be woken for another, or skip the row while another
 * instance's add of the item holds it locked), and the consumers of the other instances
 * would then sleep until their next poll. What a batch does not queue needs no notice:
 * while the handle's consumers wait (reserved first, {@link AddLeases}), a batch without
 * trace contexts runs the leasing statement, which leases its first new ready items to
 * the handle for them instead of queuing them.
 * <p>
 * Should the commit fail because PostgreSQL's {@code NOTIFY} queue is full
 * ({@link SqlErrors#notifyQueueFull}), the statement runs again once without its notice,
 * and the notice is left to the handle's notice thread ({@link QueueNotices#queued}),
 * which logs its own failure: the others find the items at their next poll, and the adds
 * succeed, as when the notice was sent apart.
 * <p>
 * Thread-safe: the group writes one batch at a time, and this class keeps no state of its
 * own beyond the statements.
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
	 * statement, and gives each its outcome.
	 */
	private void write(Batch<Request, Added> batch, Object call, AddLeases.Pending leases) {
		List<Request> requests = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			if (call == null || batch.call(i) == call) {
				requests.add(batch.argument(i));
			}
		}
		Map<String, Added> results = upsertNotifying(merged(requests), leases);
		for (int i = 0; i < batch.size(); i++) {
			if (call == null || batch.call(i) == call) {
				// The first add of an item takes the outcome; the ones merged into it
				// changed nothing more.
				Added result = results.remove(batch.argument(i).encoded());
				batch.written(i, (result != null) ? result : Added.UNCHANGED);
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
		Map<String, Added> results = upsert(connection, merged(requests), true, this.notices.channel(),
				this.notices.unstamped(), this.leases.none())
			.added();
		List<Added> outcomes = new ArrayList<>(requests.size());
		for (Request request : requests) {
			// The first add of an item takes the outcome; the ones merged into it changed
			// nothing more.
			Added result = results.remove(request.encoded());
			outcomes.add((result != null) ? result : Added.UNCHANGED);
		}
		return outcomes;
	}

	/**
	 * Each item once, in the order of its first add, with the later adds of it merged in:
	 * an upsert may not change one row twice.
	 */
	private static Collection<Request> merged(List<Request> requests) {
		Map<String, Request> merged = new LinkedHashMap<>();
		for (Request request : requests) {
			merged.merge(request.encoded(), request, Request::merge);
		}
		return merged.values();
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
	 * Runs the batch's statement with its notice; should the commit fail on the notice (a
	 * full {@code NOTIFY} queue: nothing was committed), runs it once more without, and
	 * asks the notice thread for it.
	 */
	private Map<String, Added> upsertNotifying(Collection<Request> requests, AddLeases.Pending leases) {
		String channel = this.notices.channel();
		try {
			return upsert(requests, channel, leases);
		}
		catch (PostgresQueueException ex) {
			if (channel == null || !(ex.getCause() instanceof SQLException cause)
					|| !SqlErrors.notifyQueueFull(cause)) {
				throw ex;
			}
		}
		Map<String, Added> results = upsert(requests, null, leases);
		long dueMillis = results.values()
			.stream()
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
	 * Runs the statement, and gives {@code leases} the items it leased once it is
	 * committed.
	 */
	private Map<String, Added> upsert(Collection<Request> requests, String channel, AddLeases.Pending leases) {
		Upserted upserted;
		try {
			upserted = this.database.run("add to",
					(connection) -> upsert(connection, requests, false, channel, this.notices.stamp(), leases));
		}
		catch (RuntimeException ex) {
			leases.failed();
			throw ex;
		}
		if (!upserted.leased().isEmpty()) {
			// In the queue's order, as a claim hands them out: the order of the adds
			// (seq), the highest priority first on a priority queue.
			List<Request> leased = new ArrayList<>();
			for (Request request : requests) {
				if (upserted.leased().containsKey(request.encoded())) {
					leased.add(request);
				}
			}
			if (this.byPriority) {
				leased.sort(Comparator.comparingInt(Request::priority).reversed());
			}
			for (Request request : leased) {
				leases.leased(request.encoded(), request.priority(), upserted.leased().get(request.encoded()));
			}
		}
		return upserted.added();
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
