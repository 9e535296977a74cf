package dev.workqueue.postgres;

/**
 * The statements of one queue handle: one per change of an item's state, each a file
 * under {@code sql/} ({@link SqlStatement}) made for the handle's table, its
 * {@link ReadyOrder} and its options. The columns are those of {@code schema.sql}.
 * <p>
 * <b>Variants.</b> A variant is a parameter where measuring showed it costs nothing, and
 * else a file of its own whose header names its twin and gives the figure (pgbench, the
 * statements prepared, run side by side): traced adds ({@code add_traced}, so that an add
 * without a tracer pays nothing for the trace column), a batch of adds
 * ({@code add_batch}), the starvation guard of a claim ({@code claim_starving}) and a
 * done without a claim ({@code done}). The notice of an add in the caller's transaction
 * is a nullable parameter ({@code :channel}: null for a handle that does not listen). A
 * value chosen once per queue that only picks a branch is a boolean parameter, bound by
 * {@link SqlStatement#prepare}: {@code :keeps_waits} (the FIFO order's {@code CASE}
 * branches and {@code WHERE} arm of an add's conflict clause, read only for an item that
 * has a row). The order's {@code ORDER BY} list ({@code {order:r}}) and the
 * {@code synchronous_commit} of the handle's own transactions ({@code {async_commit}},
 * which as a parameter would change every plan: see {@link SqlStatement}) are substituted
 * once per handle.
 * <p>
 * <b>Time.</b> Every statement but {@code forget}, {@code resign}, {@code resume} and
 * {@code paused} takes {@code :now}, the time in microseconds since the epoch of a given
 * clock (anchored on the database's time, {@link ClockAnchor}), or {@code null} for the
 * database's clock: the CTE {@code c} turns it into {@code now} once, so one text serves
 * both. Times come back as microseconds, relative to that {@code now} where the handle
 * waits for them.
 * <p>
 * <b>Races.</b> Each statement runs alone in its own transaction (auto-commit) under READ
 * COMMITTED, except an add made in the caller's transaction. None reads a row and then
 * writes it on the strength of that read without a lock or a {@code WHERE} that
 * PostgreSQL re-checks on the newest version of the row (EvalPlanQual): the upsert's
 * {@code ON CONFLICT} locks the row before its {@code SET} reads it, claims and sweeps
 * lock with {@code FOR UPDATE SKIP LOCKED}, and updates and deletes by token re-check it
 * after waiting for a concurrent writer.
 * <p>
 * <b>Leases</b> are rows of {@code {table}_lease} (one per lease, keyed by its token),
 * apart from the item rows, which applications lock (a re-add of an item being processed
 * in a transaction left open, an operator's {@code SELECT ... FOR UPDATE}). The claim (or
 * the leasing add) that leases an item inserts its lease row; every statement that ends a
 * lease deletes it in the same statement, and only after it holds the item row's lock
 * (the lease row is deleted from the item rows the statement changed), so no statement
 * holds a lease row while it waits for an item row. The renewal changes lease rows only:
 * it never waits for an item row, whoever locks one. The sweep of expired leases locks
 * both with {@code SKIP LOCKED}: an item whose row is locked keeps its expired lease
 * until the next sweep (nobody else can take it meanwhile: it is still processing). An
 * item row of an earlier release, whose lease is its own {@code lease_until}, is honoured
 * until that runs out and swept as any. Lease ends are computed from the time after any
 * wait of the statement ({@code clock_timestamp()}), never from a time taken before it.
 * <p>
 * One row per lease rather than one heartbeat row per handle (an item held while its
 * holder's row lives, renewals of one row): a lease of its own keeps per-item loss as it
 * was (a lost lease, a parked one, a late claim's check), and the sweep re-checks the
 * expiry on the very row it locks (EvalPlanQual on {@code lease_until}). With heartbeats
 * a handle's leases live or die together, a heartbeat that ran out must never be renewed
 * (the handle would need a new identity), and the sweep would judge an item row by
 * another table's row, which its snapshot may not show yet. The cost is a row written per
 * claimed item and an update per held item and renewal, in the same statements as before.
 */
final class QueueSql {

	/**
	 * Adds one item in the caller's transaction ({@code add.sql}), notifying in it if
	 * given a channel.
	 */
	final SqlStatement add;

	/** Adds many items in a transaction of the handle's own. */
	final SqlStatement addBatch;

	/**
	 * {@link #addBatch}, leasing some of its items to the handle for its waiting
	 * consumers.
	 */
	final SqlStatement addBatchLeasing;

	/** {@link #add} with the trace contexts of the add. */
	final SqlStatement addTraced;

	/** {@link #addBatch} with the trace contexts of each add. */
	final SqlStatement addBatchTraced;

	/**
	 * {@link #addBatch} for many adds in the caller's transaction: it never changes that
	 * transaction's {@code synchronous_commit}.
	 */
	final SqlStatement addBatchInCaller;

	/** {@link #addBatchTraced} for many adds in the caller's transaction. */
	final SqlStatement addBatchTracedInCaller;

	/** Claims ready items ({@code claim.sql} or {@code claim_starving.sql}). */
	final SqlStatement claim;

	/** Ends a hold, then claims. */
	final SqlStatement doneAndClaim;

	/** Ends holds, skipping the rows another transaction locks. */
	final SqlStatement done;

	/** Ends one hold a done skipped, waiting for its row. */
	final SqlStatement doneWaiting;

	/** Forgets an item's limiter history on its own. */
	final SqlStatement forget;

	/** Extends leases. */
	final SqlStatement renew;

	/** Queues expired leases again. */
	final SqlStatement reap;

	/** Hands leases back in their place in line. */
	final SqlStatement handBack;

	/** Hands one lease back at the back of the line, after a delay. */
	final SqlStatement handBackAfter;

	/** Hands back the leases of this holder that it does not know of. */
	final SqlStatement reconcile;

	/** Moves a payload the codec cannot read into a given-up record. */
	final SqlStatement deadLetter;

	/** The number of ready items. */
	final SqlStatement size;

	/** The shared gauges. */
	final SqlStatement stats;

	/** Ready items per priority. */
	final SqlStatement levels;

	/** Takes or keeps the reporter role. */
	final SqlStatement report;

	/** Gives the reporter role up. */
	final SqlStatement resign;

	/** A page of the ready items, in hand-out order. */
	final SqlStatement itemsReady;

	/** A page of the items being processed, by hand-out. */
	final SqlStatement itemsProcessing;

	/** A page of the waiting items, by due time. */
	final SqlStatement itemsWaiting;

	/** A page of the given-up records, newest first. */
	final SqlStatement itemsGivenUp;

	/** One item in every state. */
	final SqlStatement find;

	/** The given-up records kept. */
	final SqlStatement givenUpCount;

	/** Keeps a given-up record and trims the records to the bound. */
	final SqlStatement keepGivenUp;

	/** Deletes a given-up record. */
	final SqlStatement deleteGivenUp;

	/** Deletes a batch of the given-up records past the retention. */
	final SqlStatement givenUpExpire;

	/** Pauses the queue. */
	final SqlStatement pause;

	/** Resumes the queue and wakes its consumers. */
	final SqlStatement resume;

	/** Whether the queue is paused. */
	final SqlStatement paused;

	/** The most items one claim leases ({@link ReadyOrder#claimLimit()}). */
	final int claimLimit;

	/** The queue's ready order. */
	final ReadyOrder order;

	/**
	 * Makes the statements.
	 * @param table the table, checked
	 * @param order the ready order
	 * @param starving whether claims put the items ready longer than a timeout first
	 * @param synchronousCommit whether the handle's own commits wait for the disk
	 */
	QueueSql(String table, ReadyOrder order, boolean starving, boolean synchronousCommit) {
		this.claimLimit = order.claimLimit();
		this.order = order;
		this.add = SqlStatement.load("add", table, order, synchronousCommit);
		this.addTraced = SqlStatement.load("add_traced", table, order, synchronousCommit);
		this.addBatch = SqlStatement.load("add_batch", table, order, synchronousCommit);
		this.addBatchLeasing = SqlStatement.load("add_batch_leasing", table, order, synchronousCommit);
		this.addBatchTraced = SqlStatement.load("add_batch_traced", table, order, synchronousCommit);
		this.addBatchInCaller = synchronousCommit ? this.addBatch : SqlStatement.load("add_batch", table, order, true);
		this.addBatchTracedInCaller = synchronousCommit ? this.addBatchTraced
				: SqlStatement.load("add_batch_traced", table, order, true);
		this.claim = SqlStatement.load(starving ? "claim_starving" : "claim", table, order, synchronousCommit);
		this.doneAndClaim = SqlStatement.load(starving ? "done_claim_starving" : "done_claim", table, order,
				synchronousCommit);
		this.done = SqlStatement.load("done", table, order, synchronousCommit);
		this.doneWaiting = SqlStatement.load("done_waiting", table, order, synchronousCommit);
		this.forget = SqlStatement.load("forget", table, order, synchronousCommit);
		this.renew = SqlStatement.load("renew", table, order, synchronousCommit);
		this.reap = SqlStatement.load("reap", table, order, synchronousCommit);
		this.handBack = SqlStatement.load("hand_back", table, order, synchronousCommit);
		this.handBackAfter = SqlStatement.load("hand_back_after", table, order, synchronousCommit);
		this.reconcile = SqlStatement.load("reconcile", table, order, synchronousCommit);
		this.deadLetter = SqlStatement.load("dead_letter", table, order, synchronousCommit);
		this.size = SqlStatement.load("size", table, order, synchronousCommit);
		this.stats = SqlStatement.load("stats", table, order, synchronousCommit);
		this.levels = SqlStatement.load("levels", table, order, synchronousCommit);
		this.report = SqlStatement.load("report", table, order, synchronousCommit);
		this.resign = SqlStatement.load("resign", table, order, synchronousCommit);
		this.itemsReady = SqlStatement.load("items_ready", table, order, synchronousCommit);
		this.itemsProcessing = SqlStatement.load("items_processing", table, order, synchronousCommit);
		this.itemsWaiting = SqlStatement.load("items_waiting", table, order, synchronousCommit);
		this.itemsGivenUp = SqlStatement.load("items_given_up", table, order, synchronousCommit);
		this.find = SqlStatement.load("find", table, order, synchronousCommit);
		this.givenUpCount = SqlStatement.load("given_up_count", table, order, synchronousCommit);
		this.keepGivenUp = SqlStatement.load("keep_given_up", table, order, synchronousCommit);
		this.deleteGivenUp = SqlStatement.load("delete_given_up", table, order, synchronousCommit);
		this.givenUpExpire = SqlStatement.load("given_up_expire", table, order, synchronousCommit);
		this.pause = SqlStatement.load("pause", table, order, synchronousCommit);
		this.resume = SqlStatement.load("resume", table, order, synchronousCommit);
		this.paused = SqlStatement.load("paused", table, order, synchronousCommit);
	}

}
