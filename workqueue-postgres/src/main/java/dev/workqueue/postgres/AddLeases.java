package dev.workqueue.postgres;

import java.lang.System.Logger.Level;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.postgres.ItemClaims.Answer;
import dev.workqueue.store.ItemTaker;

/**
 * The items a handle's grouped add statement leases directly to the handle for its own
 * waiting consumers ({@code add_batch_leasing.sql}): no notice, no claim and no other
 * instance's wake-up for them, where a queued item costs all three.
 * <p>
 * Before a batch's statement, the {@link AddGroup} writer reserves the consumers that
 * wait with nothing ahead for them ({@link ItemTaker#reserveForAdds}) and starts an
 * answer that holds the handle's claims lock as a claim does
 * ({@link ItemClaims#addAnswer}); the statement leases at most that many of its new ready
 * items, and the answer takes them once the statement is committed. The writer calls no
 * user code, so the items are taken in hand (decoded, booked, put ahead for the
 * consumers) by the thread that wrote the batch, once its group call returns
 * ({@link #takeInHand}): that thread holds the lock, and a writer returns from its group
 * call after its write (whether or not the batch held its own adds). A failed statement
 * may have leased items whose answer was lost: the keeper looks for them, as after a
 * failed claim.
 * <p>
 * Thread-safe: each thread keeps the answers of the batches it wrote.
 */
final class AddLeases {

	private static final System.Logger logger = System.getLogger(AddLeases.class.getName());

	private final ItemTaker<?, PostgresLease> taker;

	private final ItemClaims claims;

	/**
	 * The batches this thread wrote in its current group call; removed when they are
	 * taken in hand, so that a thread keeps no entry for the handle between its calls.
	 */
	private final ThreadLocal<List<Pending>> written = new ThreadLocal<>();

	/** The leases of every batch that leases nothing: it keeps no state. */
	private final Pending none = new Pending(0, null);

	AddLeases(ItemTaker<?, PostgresLease> taker, ItemClaims claims) {
		this.taker = taker;
		this.claims = claims;
	}

	/**
	 * Reserves the waiting consumers for a batch about to be written, on the writing
	 * thread.
	 * @return the batch's leases, to bind and fill
	 */
	Pending reserve() {
		int reserved = this.taker.reserveForAdds();
		if (reserved == 0) {
			return none();
		}
		Answer answer;
		try {
			answer = this.claims.addAnswer();
		}
		catch (RuntimeException | Error ex) {
			this.taker.takeAdded(null, reserved, 0);
			throw ex;
		}
		Pending pending = new Pending(reserved, answer);
		List<Pending> batches = this.written.get();
		if (batches == null) {
			batches = new ArrayList<>(1);
			this.written.set(batches);
		}
		batches.add(pending);
		return pending;
	}

	/**
	 * Leases for a batch that leases nothing (one with trace contexts, or a call of a
	 * batch written again call by call).
	 * @return leases with none reserved
	 */
	Pending none() {
		return this.none;
	}

	/**
	 * After a group call, on its thread: takes in hand the items of every batch the
	 * thread wrote meanwhile, and ends their reservations. Never fails the adds, which
	 * are committed: an item that cannot be taken in hand is logged, and handed back by
	 * the keeper (which looks for the leases not in the book), or else when its lease
	 * runs out.
	 */
	void takeInHand() {
		List<Pending> batches = this.written.get();
		if (batches == null) {
			return;
		}
		this.written.remove();
		Error error = null;
		for (Pending batch : batches) {
			// Each batch in turn, whatever the one before did: each holds the claims lock
			// until its items are taken.
			try {
				this.taker.takeAdded(batch.answer, batch.reserved, batch.answer.sentNanos);
			}
			catch (RuntimeException ex) {
				// The keeper hands back what is not in the book, once the lock is free.
				this.claims.addFailed();
				logger.log(Level.WARNING, "Items an add leased to its handle's consumers could not be taken in hand;"
						+ " they go back to the queue", ex);
			}
			catch (Error ex) {
				error = (error != null) ? error : ex;
			}
		}
		if (error != null) {
			throw error;
		}
	}

	/**
	 * One batch's leases: how many consumers it reserved, and the answer its statements
	 * fill ({@code null} when it reserved none).
	 */
	final class Pending {

		private final int reserved;

		private final Answer answer;

		Pending(int reserved, Answer answer) {
			this.reserved = reserved;
			this.answer = answer;
		}

		/**
		 * How many items a statement of the batch may still lease: those reserved and not
		 * leased yet by an earlier statement of the batch.
		 * @return the count, 0 for none
		 */
		int left() {
			return (this.answer != null) ? this.reserved - this.answer.size() : 0;
		}

		/**
		 * Binds a leasing statement of the batch for the items it may still lease.
		 * @param sql the add statement
		 * @param statement the statement to bind
		 * @throws SQLException if a parameter cannot be bound
		 */
		void bind(SqlStatement sql, PreparedStatement statement) throws SQLException {
			AddLeases.this.claims.bindAddLeases(sql, statement, left());
		}

		/**
		 * Takes an item the statement leased, once it is committed.
		 * @param encoded the item
		 * @param priority its priority
		 * @param token its lease's token
		 */
		void leased(String encoded, int priority, long token) {
			this.answer.leasedByAdd(encoded, priority, token);
		}

		/** A statement of the batch failed: what it leased may be lost. */
		void failed() {
			if (this.answer != null) {
				AddLeases.this.claims.addFailed();
			}
		}

	}

}
