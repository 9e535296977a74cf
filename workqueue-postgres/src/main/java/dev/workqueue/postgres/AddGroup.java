package dev.workqueue.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workqueue.postgres.PostgresQueueException.Reason;
import dev.workqueue.spi.CallGroup;
import dev.workqueue.spi.ItemTrace;

/**
 * Group commit of one handle's adds that are not in a caller's transaction: concurrent
 * adds share one statement and one commit ({@link CallGroup}): each returns only once the
 * commit that holds its own add is done (or throws that batch's failure; an item
 * PostgreSQL cannot store fails only the call that added it). A lone add is a batch of
 * one: no wait, no timer.
 * <p>
 * A batch holds each item once: adds of one item are merged first (the highest priority,
 * the earliest due time, their trace contexts in order), since an upsert may not change
 * one row twice. A batch whose adds carry no trace context runs the plain statement; one
 * with any runs the traced one, in which the adds without a context pass {@code null}.
 * <p>
 * Thread-safe: a request's outcome is written by the leader of its batch and read by its
 * caller after {@link CallGroup#join} returns, which orders them.
 */
final class AddGroup {

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

	/** An add waiting for its batch, and its outcome. */
	private static final class Pending {

		final Request request;

		/** The call it belongs to (one {@link #add} may make several). */
		final Object call;

		Added result = Added.UNCHANGED;

		PostgresQueueException failure;

		Pending(Request request, Object call) {
			this.request = request;
			this.call = call;
		}

	}

	private final QueueDatabase database;

	private final SqlStatement sql;

	private final SqlStatement tracedSql;

	private final CallGroup<Pending> group = new CallGroup<>(MAX_BATCH, this::run);

	AddGroup(QueueDatabase database, SqlStatement sql, SqlStatement tracedSql) {
		this.database = database;
		this.sql = sql;
		this.tracedSql = tracedSql;
	}

	/**
	 * Adds items and returns once the commit that holds them is done.
	 * @param requests the adds
	 * @return what each did, in order
	 * @throws PostgresQueueException if the batch failed: nothing of it was committed
	 * (unless the connection broke during the commit)
	 */
	List<Added> add(List<Request> requests) {
		List<Pending> mine = new ArrayList<>(requests.size());
		Object call = new Object();
		for (Request request : requests) {
			mine.add(new Pending(request, call));
		}
		this.group.join(mine);
		List<Added> results = new ArrayList<>(mine.size());
		for (Pending pending : mine) {
			if (pending.failure != null) {
				// Each caller gets an exception of its own, with its own stack trace.
				PostgresQueueException shared = pending.failure;
				throw new PostgresQueueException(shared.reason(), shared.getMessage(), shared.getCause());
			}
			results.add(pending.result);
		}
		return results;
	}

	/**
	 * Runs one batch and writes every request's outcome. An item PostgreSQL cannot store
	 * (too long for the index, say) fails the statement that holds it: the batch then
	 * runs again one call at a time, so that it fails its own call only.
	 */
	private void run(List<Pending> batch) {
		try {
			write(batch);
		}
		catch (PostgresQueueException ex) {
			Map<Object, List<Pending>> calls = new LinkedHashMap<>();
			for (Pending pending : batch) {
				calls.computeIfAbsent(pending.call, (call) -> new ArrayList<>()).add(pending);
			}
			if (ex.reason() != Reason.BAD_ITEM || calls.size() == 1) {
				fail(batch, ex);
				return;
			}
			for (List<Pending> call : calls.values()) {
				try {
					write(call);
				}
				catch (PostgresQueueException alone) {
					fail(call, alone);
				}
			}
		}
	}

	/** Writes adds in one statement and gives each its outcome. */
	private void write(List<Pending> batch) {
		Map<String, Request> merged = new LinkedHashMap<>();
		for (Pending pending : batch) {
			merged.merge(pending.request.encoded(), pending.request, Request::merge);
		}
		Map<String, Added> results = this.database.run("add to", (connection) -> upsert(connection, merged.values()));
		for (Pending pending : batch) {
			// The first add of an item takes the outcome; the ones merged into it changed
			// nothing more.
			Added result = results.remove(pending.request.encoded());
			if (result != null) {
				pending.result = result;
			}
		}
	}

	private static void fail(List<Pending> adds, PostgresQueueException failure) {
		for (Pending pending : adds) {
			pending.failure = failure;
		}
	}

	private Map<String, Added> upsert(Connection connection, java.util.Collection<Request> requests)
			throws SQLException {
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
		SqlStatement sql = traced ? this.tracedSql : this.sql;
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
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					results.put(rows.getString(1), Added.read(rows, 2, traced));
				}
			}
		}
		return results;
	}

}
