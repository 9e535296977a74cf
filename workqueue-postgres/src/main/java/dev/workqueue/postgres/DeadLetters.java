package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.PreparedStatement;
import java.util.concurrent.atomic.LongAdder;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.store.LeaseBook;

/**
 * Where a handle moves a payload it cannot take (its codec cannot decode it, or the
 * decoded item's {@code hashCode} or {@code equals} throws): out of the queue, into a
 * given-up record ({@code {table}_given_up}, with the reason, kept within the queue's
 * {@link GivenUpBound}), in one statement that deletes the leased row under its token and
 * keeps the payload. Nothing is lost: if the move fails, the lease is handed back (by the
 * lease keeper) and the payload comes to this again. Thread-safe.
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

	/** The handle's holder id, which the record names. */
	private final String holder;

	private final GivenUpBound bound;

	DeadLetters(QueueDatabase database, QueueSql sql, LeaseBook<?, PostgresLease> book, FinishedRows rows,
			Runnable orphaned, String holder, GivenUpBound bound) {
		this.database = database;
		this.holder = holder;
		this.bound = bound;
		this.sql = sql;
		this.book = book;
		this.rows = rows;
		this.orphaned = orphaned;
	}

	/**
	 * Moves a leased payload aside.
	 * @param lease its lease (not in the book: it was never handed out)
	 * @param cause why the codec could not decode it, or the item's hashCode or equals
	 * threw
	 */
	void moveAside(PostgresLease lease, Throwable cause) {
		this.moved.increment();
		logger.log(Level.WARNING, "Queue '" + this.database.name() + "' moved a payload of " + lease.encoded().length()
				+ " characters that its codec cannot decode, or whose item's hashCode or equals throws, to the"
				+ " given-up items of table " + this.database.table() + " (" + this.database.table() + "_given_up)",
				cause);
		try {
			this.database.run("move an item it cannot take aside in", (connection) -> {
				try (PreparedStatement statement = this.sql.deadLetter.prepare(connection)) {
					this.database.bindNow(this.sql.deadLetter, statement);
					this.sql.deadLetter.setString(statement, "queue", this.database.name());
					this.sql.deadLetter.setString(statement, "item", lease.encoded());
					this.sql.deadLetter.setLong(statement, "token", lease.token);
					this.sql.deadLetter.setString(statement, "reason",
							PostgresInspection.storableReason(String.valueOf(cause)));
					this.sql.deadLetter.setString(statement, "holder", this.holder);
					PostgresInspection.bindBound(this.sql.deadLetter, statement, this.bound);
					statement.executeQuery().close();
					return null;
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
