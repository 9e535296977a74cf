package dev.workqueue.postgres;

import dev.workqueue.spi.ItemTrace;

/**
 * The statements of one queue handle: one per change of an item's state, written for its
 * table, its {@link ReadyOrder} and its options. The columns are those of
 * {@code schema.sql}.
 * <p>
 * <b>Time.</b> Every statement's first parameter is the time in microseconds since the
 * epoch of a given clock (anchored on the database's time, {@link ClockAnchor}), or
 * {@code null} for the database's clock: the CTE {@code c} turns it into {@code now}
 * once, so one text serves both. Times come back as microseconds, relative to that
 * {@code now} where the handle waits for them.
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
 * in a transaction left open, an operator's {@code SELECT ... FOR UPDATE}). The claim
 * that leases an item inserts its lease row; every statement that ends a lease deletes it
 * in the same statement, and only after it holds the item row's lock (the lease row is
 * deleted from the item rows the statement changed), so no statement holds a lease row
 * while it waits for an item row. The renewal changes lease rows only: it never waits for
 * an item row, whoever locks one. The sweep of expired leases locks both with
 * {@code SKIP LOCKED}: an item whose row is locked keeps its expired lease until the next
 * sweep (nobody else can take it meanwhile: it is still processing). An item row of an
 * earlier release, whose lease is its own {@code lease_until}, is honoured until that
 * runs out and swept as any. Lease ends are computed from the time after any wait of the
 * statement ({@link #AFTER_WAITS}), never from a time taken before it.
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

	/** A time as microseconds since the epoch. */
	private static final String MICROS = "(extract(epoch FROM %s) * 1000000)::bigint";

	/**
	 * The statement's {@code now} moved on by the time the statement has taken so far: a
	 * lease's end computed from it counts from after any lock the statement waited for.
	 */
	private static final String AFTER_WAITS = "(c.now + (clock_timestamp() - statement_timestamp()))";

	/**
	 * Deletes the lease rows of the leases in {@code %s} (a CTE with a {@code token}
	 * column) that a statement ended.
	 */
	private static final String ENDED = "ended AS (DELETE FROM {t}_lease l USING %1$s e WHERE l.token = e.token)";

	/** Puts a processing row back to the queued state, folding its dirty mark in. */
	private static final String RELEASE = """
			state = 0, token = NULL, holder = NULL, lease_until = NULL,
			priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
			dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
			dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END""";

	/**
	 * Locks the rows of some leases that no other session locks ({@code SKIP LOCKED}: a
	 * hand-back of many never waits for an application's lock; a row skipped keeps its
	 * lease, which nobody renews any more, and comes back when it runs out). Parameters
	 * queue, tokens[].
	 */
	private static final String HELD = """
			held AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {t} r
				WHERE r.queue = ? AND r.state = 1 AND r.token = ANY(?::bigint[])
				FOR UPDATE SKIP LOCKED)""";

	/**
	 * The trace record of a row after a traced add ({@code EXCLUDED.trace}: the add's
	 * contexts, {@code null} for none). A record is the parent ({@code ''} for none),
	 * then a line break and a link for each link, as
	 * {@link dev.workqueue.spi.ItemTrace#fromRecord} reads it. The add's contexts are
	 * those of one add, or of the adds of one item in one batch, in order, each on its
	 * own line; their record starts with a line break when the first of those adds had
	 * none. The first is the parent when the add is the item's first effective one since
	 * its last hand-out (the row is processing and not dirty: neither added again nor
	 * waiting for a kept delay) and the row has no record yet; every other one is a link.
	 * Only the first {@value ItemTrace#MAX_LINKS} links are kept.
	 */
	private static final String TRACE = """
			CASE WHEN EXCLUDED.trace IS NULL THEN r.trace
				ELSE array_to_string((string_to_array(
					CASE WHEN r.trace IS NULL AND r.state = 1 AND r.dirty_at IS NULL THEN EXCLUDED.trace
						ELSE coalesce(r.trace, '') || E'\\n' || ltrim(EXCLUDED.trace, E'\\n') END,
					E'\\n'))[1:%d], E'\\n') END""".formatted(ItemTrace.MAX_LINKS + 1);

	/**
	 * Whether a traced add may store a context in a row that it changes nothing else of:
	 * it brings contexts and the row has fewer than {@value ItemTrace#MAX_LINKS} links
	 * (line breaks).
	 */
	private static final String TRACE_ROOM = """
			(EXCLUDED.trace IS NOT NULL AND (r.trace IS NULL
					OR length(r.trace) - length(replace(r.trace, E'\\n', '')) < %d))""".formatted(ItemTrace.MAX_LINKS);

	/**
	 * Whether a traced add changed the item's place, not only its trace contexts: its
	 * row's place differs from the place before the statement. A row that changed
	 * meanwhile (committed after the statement's snapshot) differs too, as does a row
	 * inserted anew (its {@code seq} is new): at worst a wake-up too many, never one
	 * missing.
	 */
	private static final String MOVED = "old.place IS DISTINCT FROM up.place";

	/**
	 * Deletes the limiter history of one item that its failure counts forgot while a
	 * worker held it (see {@link Forgets}): parameters kinds[], queue, item. Part of
	 * every done, so that a success costs no statement of its own. A join on the kinds,
	 * not {@code kind = ANY(?)}: each kind is one probe of the primary key, and none (the
	 * usual case) reads nothing, whatever plan a prepared statement settles on.
	 */
	private static final String FORGET = "DELETE FROM {t}_limit l USING unnest(?::text[]) AS k(kind)"
			+ " WHERE l.queue = ? AND l.kind = k.kind AND l.item = ?";

	/** Adds one item: parameters now, queue, item, priority, delay in µs. */

	final String add;

	/**
	 * Adds one item in the caller's transaction and notifies in it: parameters now,
	 * queue, item, priority, delay in µs, channel, payload.
	 */
	final String addNotifying;

	/**
	 * Adds many items: parameters now, queue, items[], priorities[], delays in µs[]; the
	 * items must be distinct (an upsert may not change one row twice). They line up in
	 * the order given ({@code seq}), and lock their rows in the order of their items.
	 */
	final String addBatch;

	/**
	 * {@link #add} with the trace contexts of the add: parameters {@code add}'s, then the
	 * contexts (see {@link #TRACE}). Answers {@code add}'s columns, then whether the add
	 * changed the item's place (not only its contexts).
	 */
	final String addTraced;

	/**
	 * {@link #addNotifying} with the trace contexts of the add: parameters now, queue,
	 * item, priority, delay in µs, contexts, channel, payload. Answers as
	 * {@link #addTraced}, then the notices sent.
	 */
	final String addTracedNotifying;

	/**
	 * {@link #addBatch} with the trace contexts of each add: parameters
	 * {@code addBatch}'s, then contexts[] ({@code null} for an item without any). Answers
	 * {@code addBatch}'s columns, then whether each add changed the item's place.
	 */
	final String addBatchTraced;

	/**
	 * Claims ready items: parameters now, queue, [starvation µs, limit, queue, starvation
	 * µs,] limit, holder, lease µs, queue.
	 */
	final String claim;

	/** Ends a hold, then claims: done's parameters, then claim's (without now). */
	final String doneAndClaim;

	/**
	 * Ends a hold: parameters now, queue, item, token, then kinds[], queue, item of the
	 * history to forget; answers rows ended, the ready time of the item queued again (µs
	 * since the epoch, {@code null} if none), now.
	 */
	final String done;

	/** Forgets an item's limiter history on its own: parameters kinds[], queue, item. */
	final String forget;

	/**
	 * Extends leases: parameters now, lease µs, queue, tokens[]; answers the tokens
	 * renewed.
	 */
	final String renew;

	/**
	 * Queues expired leases again: parameters now, queue, limit, then queue, limit for
	 * the leases an earlier release kept in the item rows.
	 */
	final String reap;

	/**
	 * Hands leases back in their place in line, but for those whose item row another
	 * session locks (see {@link #HELD}): parameters now, queue, tokens[].
	 */
	final String handBack;

	/**
	 * Hands one lease back at the back of the line, after a delay: parameters now, queue,
	 * token, delay µs.
	 */
	final String handBackAfter;

	/**
	 * Hands back the leases of this holder that it does not know of (claims whose answer
	 * was lost), but for those whose item row another session locks (they run out):
	 * parameters now, queue, holder, known tokens[].
	 */
	final String reconcile;

	/**
	 * Moves a payload the codec cannot read aside: parameters now, queue, item, token,
	 * reason.
	 */
	final String deadLetter;

	/** The number of ready items: parameters now, queue. */
	final String size;

	/** The shared gauges: parameters now, queue, queue. */
	final String stats;

	/** Ready items per priority: parameters now, queue. */
	final String levels;

	/** Takes or keeps the reporter role: parameters now, queue, lapse µs, holder. */
	final String report;

	/** Gives the reporter role up: parameters queue, holder. */
	final String resign;

	/** The most items one claim leases ({@link ReadyOrder#claimLimit()}). */
	final int claimLimit;

	/**
	 * Writes the statements.
	 * @param table the table, checked
	 * @param order the ready order
	 * @param starving whether claims put the items ready longer than a timeout first
	 * @param synchronousCommit whether the handle's own commits wait for the disk
	 */
	QueueSql(String table, ReadyOrder order, boolean starving, boolean synchronousCommit) {
		String clock = "c AS (SELECT coalesce(to_timestamp(?::float8 / 1000000), statement_timestamp()) AS now"
				+ (synchronousCommit ? "" : " FROM (SELECT set_config('synchronous_commit', 'off', true)) s") + ")";
		// The caller's transaction follows the caller's settings.
		String callerClock = "c AS (SELECT coalesce(to_timestamp(?::float8 / 1000000), statement_timestamp()) AS now)";
		this.claimLimit = order.claimLimit();
		this.add = "WITH " + callerClock + ",\n" + addOne(table, order, false, false);
		this.addNotifying = "WITH " + callerClock + ",\n" + addOne(table, order, true, false);
		this.addTraced = "WITH " + callerClock + ",\n" + addOne(table, order, false, true);
		this.addTracedNotifying = "WITH " + callerClock + ",\n" + addOne(table, order, true, true);
		this.addBatch = "WITH " + clock + addBatch(table, order, false);
		this.addBatchTraced = "WITH " + clock + addBatch(table, order, true);
		String claimSelect = claimSelect(table, order, starving);
		this.claim = "WITH " + clock + ",\n" + claimCtes(table, order, starving, "") + "\n" + claimSelect.formatted("");
		String doneCtes = """
				gone AS (DELETE FROM {t} WHERE queue = ? AND item = ? AND token = ? AND state = 1
					RETURNING queue, item, token, dirty_at, dirty_priority, trace),
				%s,
				back AS (INSERT INTO {t} (queue, item, state, priority, ready_at, seq, trace)
					SELECT g.queue, g.item, 0, g.dirty_priority, greatest(g.dirty_at, c.now), nextval('{t}_token'), g.trace
					FROM gone g, c WHERE g.dirty_at IS NOT NULL
					RETURNING ready_at),
				forgot AS (%s)"""
			.formatted(ENDED.formatted("gone"), FORGET)
			.replace("{t}", table);
		// The claim cannot see the row the done queues again (one snapshot): it waits
		// for the next claim, which is what client-go's done does too (back of the line).
		// It locks nothing before the done has its row: a done that waits for an
		// application's lock on that row (a re-add in a transaction left open) holds no
		// other item meanwhile.
		this.doneAndClaim = "WITH " + clock + ",\n" + doneCtes + ",\n"
				+ claimCtes(table, order, starving, "AND (SELECT count(*) FROM gone) >= 0") + "\n" + claimSelect
					.formatted(", (SELECT count(*) FROM gone), (SELECT " + micros("b.ready_at") + " FROM back b)");
		this.done = "WITH " + clock + ",\n" + doneCtes + "\nSELECT (SELECT count(*) FROM gone), " + micros("b.ready_at")
				+ ", " + micros("c.now") + " FROM c LEFT JOIN back b ON true";
		this.forget = FORGET.replace("{t}", table);
		// Lease rows only: no application locks them, and the statements that end leases
		// lock them only once they hold the item's row, so this never waits for long.
		this.renew = ("WITH " + clock + """

				UPDATE {t}_lease l SET lease_until = %s + ?::bigint * interval '1 microsecond'
				FROM c WHERE l.queue = ? AND l.token = ANY(?::bigint[])
				RETURNING l.token""").formatted(AFTER_WAITS).replace("{t}", table);
		// The expired leases, then their item rows, both SKIP LOCKED: a lease whose item
		// row is locked waits for the next sweep. A lease whose item row lost its token
		// (deleted by hand) is deleted as stale: a token is on an item row only from the
		// claim that wrote its lease row, in the same transaction, so one missing from
		// the snapshot never comes back. Then the leases an earlier release kept in the
		// item rows.
		this.reap = ("WITH " + clock + """
				,
				expired AS MATERIALIZED (SELECT l.queue, l.item, l.token FROM {t}_lease l
					WHERE l.queue = ? AND l.lease_until < (SELECT now FROM c)
					ORDER BY l.lease_until LIMIT ? FOR UPDATE SKIP LOCKED),
				freed AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {t} r
					JOIN expired e ON r.queue = e.queue AND r.item = e.item AND r.token = e.token
					WHERE r.state = 1 FOR UPDATE OF r SKIP LOCKED),
				stale AS (SELECT e.token FROM expired e WHERE NOT EXISTS (SELECT 1 FROM {t} r
					WHERE r.queue = e.queue AND r.item = e.item AND r.token = e.token AND r.state = 1)),
				earlier AS MATERIALIZED (SELECT r.queue, r.item FROM {t} r
					WHERE r.queue = ? AND r.state = 1 AND r.lease_until < (SELECT now FROM c)
					ORDER BY r.lease_until LIMIT ? FOR UPDATE SKIP LOCKED),
				%s
				UPDATE {t} r SET %s,
					ready_at = c.now, seq = nextval('{t}_token')
				FROM (SELECT f.queue, f.item FROM freed f UNION ALL SELECT o.queue, o.item FROM earlier o) x, c
				WHERE r.queue = x.queue AND r.item = x.item""")
			.formatted(ENDED.formatted("(SELECT token FROM freed UNION ALL SELECT token FROM stale)"), RELEASE)
			.replace("{t}", table);
		// Back in its place: it keeps ready_at and seq, which the claim did not change.
		this.handBack = ("WITH " + clock + ",\n" + HELD + ",\n" + ENDED.formatted("held") + """

				UPDATE {t} r SET %s
				FROM held, c WHERE r.queue = held.queue AND r.item = held.item""").formatted(RELEASE)
			.replace("{t}", table);
		// As an add of an item that is not queued, folded with its dirty mark: the
		// earliest of the two times, the higher priority.
		this.handBackAfter = ("WITH " + clock + """
				,
				held AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {t} r
					WHERE r.queue = ? AND r.state = 1 AND r.token = ? FOR UPDATE),
				%s
				UPDATE {t} r SET state = 0, token = NULL, holder = NULL, lease_until = NULL,
					ready_at = least(c.now + ?::bigint * interval '1 microsecond',
						greatest(coalesce(r.dirty_at, 'infinity'), c.now)),
					seq = nextval('{t}_token'),
					priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
					dirty_at = NULL, dirty_priority = NULL
				FROM held, c WHERE r.queue = held.queue AND r.item = held.item
				RETURNING %s""").formatted(ENDED.formatted("held"), micros("r.ready_at - c.now")).replace("{t}", table);
		this.reconcile = ("WITH " + clock + """
				,
				lost AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {t} r
					WHERE r.queue = ? AND r.state = 1 AND r.holder = ? AND r.token <> ALL(?::bigint[])
					FOR UPDATE SKIP LOCKED),
				%s
				UPDATE {t} r SET %s
				FROM lost, c WHERE r.queue = lost.queue AND r.item = lost.item""")
			.formatted(ENDED.formatted("lost"), RELEASE)
			.replace("{t}", table);
		this.deadLetter = ("WITH " + clock + """
				,
				gone AS (DELETE FROM {t} WHERE queue = ? AND item = ? AND token = ? AND state = 1
					RETURNING queue, item, token),
				%s
				INSERT INTO {t}_limit AS l (queue, kind, item, count, at, holder, expires_at)
				SELECT g.queue, 'dead-letter', g.item, 1, c.now, ?, 'infinity' FROM gone g, c
				ON CONFLICT (queue, kind, item) DO UPDATE SET count = l.count + 1, at = EXCLUDED.at,
					holder = EXCLUDED.holder""").formatted(ENDED.formatted("gone")).replace("{t}", table);
		this.size = ("WITH " + clock + """

				SELECT count(*) FROM {t} r, c WHERE r.queue = ? AND r.state = 0 AND r.ready_at <= c.now""")
			.replace("{t}", table);
		this.stats = ("WITH " + clock + """

				SELECT count(*) FILTER (WHERE r.state = 0 AND r.ready_at <= c.now),
					count(*) FILTER (WHERE r.state = 1),
					count(*) FILTER (WHERE r.state = 0 AND r.ready_at > c.now),
					count(*) FILTER (WHERE r.state = 1 AND r.dirty_at IS NOT NULL),
					(SELECT %s FROM {t} h WHERE h.queue = ? AND h.state = 0 AND h.ready_at <= (SELECT now FROM c)
						ORDER BY %s LIMIT 1)
				FROM {t} r, c WHERE r.queue = ?""")
			.formatted(micros("(SELECT now FROM c) - h.ready_at"), order.orderBy("h"))
			.replace("{t}", table);
		this.levels = ("WITH " + clock + """

				SELECT r.priority, count(*), %s FROM {t} r, c
				WHERE r.queue = ? AND r.state = 0 AND r.ready_at <= c.now
				GROUP BY r.priority, c.now ORDER BY r.priority DESC""").formatted(micros("c.now - min(r.ready_at)"))
			.replace("{t}", table);
		this.report = ("WITH " + clock + """

				INSERT INTO {t}_limit AS l (queue, kind, item, count, at, holder, expires_at)
				SELECT q.queue, 'gauges', '', 0, q.lapse, q.holder, q.lapse
				FROM (SELECT ?::text AS queue, c.now + ?::bigint * interval '1 microsecond' AS lapse, ?::text AS holder
					FROM c) q
				ON CONFLICT (queue, kind, item) DO UPDATE SET at = EXCLUDED.at, holder = EXCLUDED.holder,
					expires_at = EXCLUDED.expires_at
				WHERE l.holder = EXCLUDED.holder OR l.at < (SELECT now FROM c)
				RETURNING l.holder""").replace("{t}", table);
		this.resign = "DELETE FROM " + table
				+ "_limit WHERE queue = ? AND kind = 'gauges' AND item = '' AND holder = ?";
	}

	private static String micros(String expression) {
		return MICROS.formatted(expression);
	}

	/**
	 * The adds of many items after the clock's CTE; {@code traced}: with their trace
	 * contexts.
	 */
	private static String addBatch(String table, ReadyOrder order, boolean traced) {
		return """
					,
					a AS MATERIALIZED (SELECT ?::text AS queue, u.item, u.priority,
					c.now + u.delay * interval '1 microsecond' AS due, c.now, nextval('{t}_token') AS seq%s
				FROM c, unnest(?::text[], ?::integer[], ?::bigint[]%s) WITH ORDINALITY AS u(item, priority, delay,%s ord)
				ORDER BY u.ord),
					old AS (SELECT r.item, %s AS queued%s FROM {t} r JOIN a ON r.queue = a.queue AND r.item = a.item),
					up AS (INSERT INTO {t} AS r (queue, item, state, priority, ready_at, seq%s)
						SELECT a.queue, a.item, 0, a.priority, a.due, a.seq%s FROM a ORDER BY a.item
						%s
						RETURNING r.item, r.state, r.ready_at%s)
					SELECT up.item, up.state, up.ready_at <= c.now, %s, %s, %s%s
					FROM up CROSS JOIN c LEFT JOIN old ON old.item = up.item
					"""
			.formatted(traced ? ", u.trace" : "", traced ? ", ?::text[]" : "", traced ? " trace," : "", queued("a"),
					traced ? ", " + place("r") : "", traced ? ", trace" : "", traced ? ", a.trace" : "",
					upsert(table, order, traced), traced ? ", " + place("r") : "", micros("up.ready_at"),
					effective(traced), micros("c.now"), traced ? ", " + MOVED : "")
			.replace("{t}", table);
	}

	/**
	 * The columns of a row that say where its item is in the queue (all but the lease's
	 * and the trace contexts), as one row value.
	 */
	private static String place(String r) {
		return "(%1$s.state, %1$s.priority, %1$s.ready_at, %1$s.seq, %1$s.dirty_at, %1$s.dirty_priority) AS place"
			.formatted(r);
	}

	/**
	 * Whether an add was a new add of its item (client-go counts only these): it changed
	 * something, and the item was not queued before. A traced add may change only the
	 * contexts of a queued item: no new add.
	 */
	private static String effective(boolean traced) {
		return (traced ? "(" + MOVED + ") AND " : "") + "NOT coalesce(old.queued, false)";
	}

	/**
	 * Whether the item was queued already before an add: ready, or dirty while
	 * processing. An add that finds it so is no new add (client-go counts it once).
	 */
	private static String queued(String a) {
		return "((r.state = 0 AND r.ready_at <= " + a + ".now) OR (r.state = 1 AND r.dirty_at IS NOT NULL))";
	}

	private static String addOne(String table, ReadyOrder order, boolean notifying, boolean traced) {
		if (traced) {
			// As the untraced add, with the contexts and one row of old (none: nulls).
			return """
					a AS (SELECT ?::text AS queue, ?::text AS item, ?::integer AS priority,
						c.now + ?::bigint * interval '1 microsecond' AS due, c.now, ?::text AS trace FROM c),
					old AS (SELECT %s AS queued, %s FROM a LEFT JOIN {t} r ON r.queue = a.queue AND r.item = a.item),
					up AS (INSERT INTO {t} AS r (queue, item, state, priority, ready_at, seq, trace)
						SELECT a.queue, a.item, 0, a.priority, a.due, nextval('{t}_token'), a.trace FROM a
						%s
						RETURNING r.item, r.state, r.ready_at, %s)%s
					SELECT up.state, up.ready_at <= a.now, %s, %s, %s, %s%s
					FROM up, a, old
					"""
				.formatted(queued("a"), place("r"), upsert(table, order, true), place("r"),
						notifying ? ",\nn AS (SELECT pg_notify(?, ?) FROM up, old WHERE up.state = 0 AND " + MOVED + ")"
								: "",
						micros("up.ready_at"), effective(true), micros("a.now"), MOVED,
						notifying ? ", (SELECT count(*) FROM n)" : "")
				.replace("{t}", table);
		}
		return """
				a AS (SELECT ?::text AS queue, ?::text AS item, ?::integer AS priority,
					c.now + ?::bigint * interval '1 microsecond' AS due, c.now FROM c),
				old AS (SELECT %s AS queued FROM {t} r, a WHERE r.queue = a.queue AND r.item = a.item),
				up AS (INSERT INTO {t} AS r (queue, item, state, priority, ready_at, seq)
					SELECT a.queue, a.item, 0, a.priority, a.due, nextval('{t}_token') FROM a
					%s
					RETURNING r.item, r.state, r.ready_at)%s
				SELECT up.state, up.ready_at <= a.now, %s, NOT coalesce((SELECT queued FROM old), false), %s%s
				FROM up, a
				""".formatted(queued("a"), upsert(table, order, false),
				// pg_notify is transactional: delivered at the commit, dropped by a
				// rollback. Counted, so that it runs.
				notifying ? ",\nn AS (SELECT pg_notify(?, ?) FROM up WHERE up.state = 0)" : "", micros("up.ready_at"),
				micros("a.now"), notifying ? ", (SELECT count(*) FROM n)" : "")
			.replace("{t}", table);
	}

	/**
	 * The conflict clause of an add: client-go's rules for an item that has a row
	 * already. {@code N} is now, {@code D} the add's due time ({@code N} without delay),
	 * {@code P} its priority. A queued row that is waiting ({@code ready_at > N}) takes
	 * the earlier time and the higher priority; a ready one takes a higher priority from
	 * an add without delay and lines up at the back of its new level; a processing one is
	 * marked dirty with the earliest time and the highest priority. A row the
	 * {@code WHERE} rejects is left alone and returns nothing: the add changed nothing.
	 * The new {@code seq} is the one the insert took ({@code EXCLUDED.seq}).
	 * <p>
	 * {@code traced}: the insert brings the add's trace contexts
	 * ({@code EXCLUDED.trace}), and the clause stores them ({@link #TRACE}), also where
	 * it leaves everything else as it is, while the row has room for a link.
	 */
	private static String upsert(String table, ReadyOrder order, boolean traced) {
		String keptWaitAt = "";
		String keptWaitPriority = "";
		String keptWaitWhere = "";
		if (order.keepsWaits()) {
			// client-go keeps a waiting item's wait apart from the queue: an add now does
			// not cancel it, and a delayed add of a ready item is a wait of its own. Kept
			// in the dirty columns of the queued row; a claim keeps it as the dirty mark
			// if it is still to come, and forgets it if it came while the item was queued
			// (then that add found the item queued: a no-op).
			keptWaitAt = """
					WHEN r.ready_at > {N} AND {D} <= {N} THEN r.ready_at
					WHEN r.ready_at <= {N} AND {D} > {N} THEN
						CASE WHEN r.dirty_at IS NULL OR r.dirty_at <= {N} THEN {D} ELSE least(r.dirty_at, {D}) END
					""";
			keptWaitPriority = """
					WHEN (r.ready_at > {N} AND {D} <= {N}) OR (r.ready_at <= {N} AND {D} > {N})
						THEN greatest(coalesce(r.dirty_priority, {P}), {P})
					""";
			keptWaitWhere = """

					OR (r.state = 0 AND r.ready_at <= {N} AND {D} > {N}
						AND (r.dirty_at IS NULL OR r.dirty_at <= {N} OR {D} < r.dirty_at))""";
		}
		String clause = """
				ON CONFLICT (queue, item) DO UPDATE SET
					priority = CASE WHEN r.state = 0 AND (r.ready_at > {N} OR {D} <= {N})
						THEN greatest(r.priority, {P}) ELSE r.priority END,
					ready_at = CASE
						WHEN r.state = 1 THEN r.ready_at
						WHEN r.ready_at > {N} THEN least(r.ready_at, {D})
						WHEN {D} <= {N} AND {P} > r.priority THEN {N}
						ELSE r.ready_at END,
					seq = CASE
						WHEN r.state = 0 AND r.ready_at > {N} AND {D} < r.ready_at THEN EXCLUDED.seq
						WHEN r.state = 0 AND r.ready_at <= {N} AND {D} <= {N} AND {P} > r.priority THEN EXCLUDED.seq
						ELSE r.seq END,
					dirty_at = CASE
						WHEN r.state = 1 THEN least(coalesce(r.dirty_at, {D}), {D})
						%sELSE r.dirty_at END,
					dirty_priority = CASE
						WHEN r.state = 1 THEN greatest(coalesce(r.dirty_priority, {P}), {P})
						%sELSE r.dirty_priority END
				WHERE (r.state = 1 AND (r.dirty_at IS NULL OR {D} < r.dirty_at OR {P} > r.dirty_priority))
					OR (r.state = 0 AND r.ready_at > {N} AND ({D} < r.ready_at OR {P} > r.priority))
					OR (r.state = 0 AND r.ready_at <= {N} AND {D} <= {N} AND {P} > r.priority)%s"""
			.formatted(keptWaitAt, keptWaitPriority, keptWaitWhere);
		if (traced) {
			clause = clause.replace("\nWHERE ", ",\n\ttrace = " + TRACE + "\nWHERE (") + ")\n\tOR " + TRACE_ROOM;
		}
		return clause.replace("{N}", "(SELECT now FROM c)")
			.replace("{D}", "EXCLUDED.ready_at")
			.replace("{P}", "EXCLUDED.priority")
			.replace("{t}", table);
	}

	/**
	 * The CTEs of a claim: {@code picked} locks the next ready items, {@code claimed}
	 * leases them ({@code leased} writes their lease rows) and takes their trace records
	 * (read by {@code picked}, under the lock: the {@code UPDATE} returns only the new
	 * row). An item that still waits for a kept delay ({@code dirty_at} to come) keeps
	 * its parent for the hand-out that the delay brings; every other record is cleared.
	 * {@code MATERIALIZED} fences the planner: a {@code LIMIT} subquery inlined into the
	 * {@code UPDATE} may be run again per row and lease more than the limit. With the
	 * starvation guard, the items ready longer than the timeout come first, oldest first,
	 * then the others by the ready order, up to the limit in all. {@code after}: a
	 * condition that {@code picked} must meet first (empty for none), so that what it
	 * refers to has run before any item is locked.
	 */
	private static String claimCtes(String table, ReadyOrder order, boolean starving, String after) {
		String picked;
		if (starving) {
			picked = """
					starving AS MATERIALIZED (SELECT r.queue, r.item, true AS starving, r.trace FROM {t} r
						WHERE r.queue = ? AND r.state = 0
							AND r.ready_at < (SELECT now FROM c) - ?::bigint * interval '1 microsecond' %1$s
						ORDER BY r.ready_at, r.seq LIMIT ? FOR UPDATE SKIP LOCKED),
					fresh AS MATERIALIZED (SELECT r.queue, r.item, false AS starving, r.trace FROM {t} r
						WHERE r.queue = ? AND r.state = 0 AND r.ready_at <= (SELECT now FROM c)
							AND r.ready_at >= (SELECT now FROM c) - ?::bigint * interval '1 microsecond' %1$s
						ORDER BY %2$s LIMIT ?::bigint - (SELECT count(*) FROM starving) FOR UPDATE SKIP LOCKED),
					picked AS (SELECT * FROM starving UNION ALL SELECT * FROM fresh),""".formatted(after,
					order.orderBy("r"));
		}
		else {
			picked = """
					picked AS MATERIALIZED (SELECT r.queue, r.item, false AS starving, r.trace FROM {t} r
						WHERE r.queue = ? AND r.state = 0 AND r.ready_at <= (SELECT now FROM c) %s
						ORDER BY %s LIMIT ? FOR UPDATE SKIP LOCKED),""".formatted(after, order.orderBy("r"));
		}
		return (picked + """

				claimed AS (UPDATE {t} r SET state = 1, token = nextval('{t}_token'), holder = ?, lease_until = NULL,
						dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
						dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END,
						trace = CASE WHEN r.dirty_at > c.now THEN nullif(split_part(r.trace, E'\\n', 1), '') END
					FROM picked, c WHERE r.queue = picked.queue AND r.item = picked.item
					RETURNING r.queue, r.item, r.priority, r.token, r.holder, r.ready_at, r.seq, picked.starving,
						picked.trace),
				leased AS (INSERT INTO {t}_lease (token, queue, item, holder, lease_until)
					SELECT k.token, k.queue, k.item, k.holder, %s + ?::bigint * interval '1 microsecond'
					FROM claimed k, c)""".formatted(AFTER_WAITS)).replace("{t}", table);
	}

	/**
	 * The answer of a claim: one row per item leased, in hand-out order, or one row of
	 * nulls: item, priority, token, how long it was ready (µs), trace record
	 * ({@code null} for none); then on every row the time until the earliest waiting item
	 * falls due ({@code null} if none waits), so that consumers know when to look again,
	 * and {@code now} (µs since the epoch). {@code %s}: columns to add.
	 */
	private static String claimSelect(String table, ReadyOrder order, boolean starving) {
		String handOut = starving
				? "k.starving DESC, CASE WHEN k.starving THEN 0 ELSE -k.priority END, k.ready_at, k.seq"
				: order.orderBy("k");
		return """
				SELECT k.item, k.priority, k.token, %s, k.trace, %s, %s%%s
				FROM c CROSS JOIN (SELECT min(w.ready_at) AS due FROM {t} w
					WHERE w.queue = ? AND w.state = 0 AND w.ready_at > (SELECT now FROM c)) d
				LEFT JOIN claimed k ON true
				ORDER BY %s"""
			.formatted(micros("c.now - k.ready_at"), micros("d.due - c.now"), micros("c.now"), handOut)
			.replace("{t}", table);
	}

}
