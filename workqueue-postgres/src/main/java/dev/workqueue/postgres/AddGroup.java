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
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit of one handle's adds that are not in a caller's transaction: concurrent
 * adds share one statement and one commit. The first caller that finds no batch running
 * becomes the leader: it takes everything queued so far (its own add included) and runs
 * it; the others wait, and each returns only once the commit that holds its own add is
 * done (or throws that batch's failure). Whoever finds its add still queued when a batch
 * ends leads the next one. A lone add is a batch of one: no wait, no timer.
 * <p>
 * A batch holds each item once: adds of one item are merged first (the highest priority,
 * the earliest due time), since an upsert may not change one row twice.
 * <p>
 * Thread-safe: {@code lock} guards {@code queued} and {@code running}; a request's result
 * is written by the leader before it takes the lock to mark the batch done, and read by
 * its caller after it sees that mark under the lock.
 */
final class AddGroup {

	/** Most adds in one statement. */
	static final int MAX_BATCH = 1000;

	/** One add. */
	record Request(String encoded, int priority, long delayMicros) {

	}

	/** An add waiting for its batch, and its outcome. */
	private static final class Pending {

		final Request request;

		Added result = Added.UNCHANGED;

		PostgresQueueException failure;

		boolean done;

		Pending(Request request) {
			this.request = request;
		}

	}

	private final QueueDatabase database;

	private final String sql;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition batchDone = this.lock.newCondition();

	private List<Pending> queued = new ArrayList<>();

	private boolean running;

	AddGroup(QueueDatabase database, String sql) {
		this.database = database;
		this.sql = sql;
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
		for (Request request : requests) {
			mine.add(new Pending(request));
		}
		this.lock.lock();
		try {
			this.queued.addAll(mine);
			while (!mine.get(mine.size() - 1).done) {
				if (this.running) {
					// Not interruptible: an add is acknowledged once committed, and the
					// caller of add cannot be told otherwise.
					this.batchDone.awaitUninterruptibly();
					continue;
				}
				this.running = true;
				List<Pending> batch = takeBatch();
				this.lock.unlock();
				try {
					run(batch);
				}
				finally {
					this.lock.lock();
					this.running = false;
					for (Pending pending : batch) {
						pending.done = true;
					}
					this.batchDone.signalAll();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
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

	/** Takes the next batch off the queue. Called under the lock. */
	private List<Pending> takeBatch() {
		if (this.queued.size() <= MAX_BATCH) {
			List<Pending> batch = this.queued;
			this.queued = new ArrayList<>();
			return batch;
		}
		List<Pending> batch = new ArrayList<>(this.queued.subList(0, MAX_BATCH));
		this.queued = new ArrayList<>(this.queued.subList(MAX_BATCH, this.queued.size()));
		return batch;
	}

	/** Runs one batch and writes every request's outcome. */
	private void run(List<Pending> batch) {
		Map<String, Request> merged = new LinkedHashMap<>();
		for (Pending pending : batch) {
			merged.merge(pending.request.encoded(), pending.request, (a, b) -> new Request(a.encoded(),
					Math.max(a.priority(), b.priority()), Math.min(a.delayMicros(), b.delayMicros())));
		}
		Map<String, Added> results;
		try {
			results = this.database.run("add to", (connection) -> upsert(connection, merged.values()));
		}
		catch (PostgresQueueException ex) {
			for (Pending pending : batch) {
				pending.failure = ex;
			}
			return;
		}
		for (Pending pending : batch) {
			// The first add of an item takes the outcome; the ones merged into it changed
			// nothing more.
			Added result = results.remove(pending.request.encoded());
			if (result != null) {
				pending.result = result;
			}
		}
	}

	private Map<String, Added> upsert(Connection connection, java.util.Collection<Request> requests)
			throws SQLException {
		String[] items = new String[requests.size()];
		Integer[] priorities = new Integer[items.length];
		Long[] delays = new Long[items.length];
		int i = 0;
		for (Request request : requests) {
			items[i] = request.encoded();
			priorities[i] = request.priority();
			delays[i] = request.delayMicros();
			i++;
		}
		Map<String, Added> results = new HashMap<>();
		try (PreparedStatement statement = connection.prepareStatement(this.sql)) {
			Array itemArray = connection.createArrayOf("text", items);
			Array priorityArray = connection.createArrayOf("integer", priorities);
			Array delayArray = connection.createArrayOf("bigint", delays);
			this.database.bindNow(statement);
			statement.setString(2, this.database.name());
			statement.setArray(3, itemArray);
			statement.setArray(4, priorityArray);
			statement.setArray(5, delayArray);
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					results.put(rows.getString(1), new Added(true, rows.getBoolean(5), rows.getInt(2) == 0,
							rows.getBoolean(3), rows.getLong(4), rows.getLong(6)));
				}
			}
		}
		return results;
	}

}
