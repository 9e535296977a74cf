package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.PreparedStatement;
import java.util.concurrent.atomic.LongAdder;

import dev.workqueue.store.LeaseBook;

/**
 * Where a handle moves a payload its codec cannot decode: out of the queue, into the
 * table's dead letters (rows of kind {@code dead-letter} in the table of the rate
 * limiters, with the reason and a count), in one statement that deletes the leased row
 * under its token and keeps the payload. Nothing is lost: if the move fails, the lease is
 * handed back (by the lease keeper) and the payload comes to this again. Thread-safe.
 */
final class DeadLetters {

	private static final System.Logger logger = System.getLogger(DeadLetters.class.getName());

	private final QueueDatabase database;

	private final QueueSql sql;

	private final LeaseBook<?, PostgresLease> book;

	private final FinishedRows rows;

	/** Wakes the lease keeper, which hands back the orphans. */
	private final Runnable orphaned;

	private final LongAdder moved = new LongAdder();

	DeadLetters(QueueDatabase database, QueueSql sql, LeaseBook<?, PostgresLease> book, FinishedRows rows,
			Runnable orphaned) {
		this.database = database;
		this.sql = sql;
		this.book = book;
		this.rows = rows;
		this.orphaned = orphaned;
	}

	/**
	 * Moves a leased payload aside.
	 * @param lease its lease (not in the book: it was never handed out)
	 * @param cause why the codec could not decode it
	 */
	void moveAside(PostgresLease lease, RuntimeException cause) {
		this.moved.increment();
		logger.log(Level.WARNING,
				"Queue '" + this.database.name() + "' moved a payload of " + lease.encoded().length()
						+ " characters that its codec cannot decode to the dead letters of table "
						+ this.database.table() + " (" + this.database.table() + "_limit, kind 'dead-letter')",
				cause);
		try {
			this.database.run("move an undecodable item aside in", (connection) -> {
				try (PreparedStatement statement = this.sql.deadLetter.prepare(connection)) {
					this.database.bindNow(this.sql.deadLetter, statement);
					this.sql.deadLetter.setString(statement, "queue", this.database.name());
					this.sql.deadLetter.setString(statement, "item", lease.encoded());
					this.sql.deadLetter.setLong(statement, "token", lease.token);
					this.sql.deadLetter.setString(statement, "reason", String.valueOf(cause));
					return statement.executeUpdate();
				}
			});
			this.rows.finished(1);
		}
		catch (PostgresQueueException ex) {
			this.book.orphan(lease);
			this.orphaned.run();
		}
	}

	/** How many payloads this handle moved aside. */
	long moved() {
		return this.moved.sum();
	}

}
