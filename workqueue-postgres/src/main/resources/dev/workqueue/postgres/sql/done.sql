-- done: ends holds, the dones of a group (one worker's, or several sent while another call was
--   under way) in one statement and commit: held locks each item's row its token still holds,
--   skipping the rows another transaction locks (FOR UPDATE SKIP LOCKED, as hand_back.sql; item =
--   ANY and token = ANY match each lease's own pair: a token is drawn once, by the claim of one
--   row); gone deletes the rows held (by key: a row an add changed after the snapshot is deleted
--   in its newest version, the one held locked; the queue too taken from held, so that each row
--   is one probe of the primary key whatever the planner thinks of :queue: with :queue a
--   constant, a queue the last ANALYZE did not see was estimated at one row and its every row
--   read for each done, 20 ms for 4,000 items), ended their lease rows, back queues again each
--   item added while processing (its dirty mark: the earliest time and the highest priority),
--   forgot deletes the limiter history their failure counts forgot while held (part of every
--   done, so a success costs no statement of its own; forgettable joins the (queue, item, kind)
--   keys, the queue a column of them (array_fill) for gone's reason: with l.queue = :queue a new
--   queue's every history row was read, 13 ms for 20,000; each key one probe of the primary key;
--   every pair of the group, skipped or not; rows another transaction locks are skipped, as
--   held's), skipped names the leases whose rows it skipped and unforgotten the history rows:
--   the handle ends each of those leases in done_waiting.sql and forgets that history in
--   forget.sql, statements of their own that wait for their rows.
-- Twin: done_claim.sql (then claims, in the same statement; a file of its own: done_claim.sql
--   with :limit 0 costs a done 85 to 96% more, pgbench, for a claim half planned and run for
--   nothing), done_waiting.sql (one lease, waiting for its row). One file for one lease or many:
--   a lone done as arrays of one cost what the one-lease form (item and token as scalars) cost,
--   -0.5 to +2.8% (pgbench, prepared, 4 clients side by side, 3 runs of 15 s, synchronous_commit
--   off). SKIP LOCKED and skipped cost more than the statement that waited (gone's DELETE
--   joined the arrays): a lone done 0.206 to 0.427 ms (median 0.261) against 0.167
--   to 0.294 (0.226), a group of 16 0.367 to 0.904 ms (0.81, one run of 6.9 left out) against
--   0.541 to 0.721 (0.64): +15% and +25% (pgbench -r, prepared, 1 client, 7 alternated runs of 3
--   s each, synchronous_commit off, 20,000 other rows in the table, a 2-core machine busy with a
--   test suite)
-- Parameters:
--   :now           the given clock's time in µs since the epoch, or null for the database's clock
--   :queue         the queue's name
--   :items         the encoded items, one per lease (at least one)
--   :tokens        the leases' tokens, parallel to :items
--   :forget_items  the items whose limiter history to forget, one per (item, kind) pair (empty
--                  for none)
--   :forget_kinds  the limiter kinds of those pairs, parallel to :forget_items
-- Returns: one row: rows ended (fewer than the leases for stale and skipped tokens), the
--   earliest ready time of the items queued again (µs, null if none), now (µs), the tokens of
--   the leases whose rows it skipped (sorted, null if none), the items and, parallel, the kinds
--   of the history rows it skipped (sorted, null if none)
-- Races: held and forgettable wait for no row: a row another transaction locks (an
--   application's transaction that added the item while it was held, or counted its failures
--   from another instance; an add's batch, the keeper's reap or a hand-back) is skipped, so the
--   statement never holds one row while it waits for another (no deadlock with a caller's
--   transaction or a batch of adds, which lock rows in item order, and no done of the group
--   waits for an application's commit). A history row forgotten after the commit it waited for
--   loses that transaction's count too: as if the forget came after it, one of the two orders
--   of a forget and a count that race. A row changed and committed
--   after the snapshot is re-checked on its newest version (EvalPlanQual): a stale done (the
--   lease ran out and the item was claimed again) changes nothing, and the others of the group
--   end all the same; skipped looks at the snapshot, so such a row may be named skipped, and
--   done_waiting.sql then finds it stale. ended deletes the lease rows in token order (the
--   index's order for = ANY), the order renew.sql locks them in: a renewal of leases whose done
--   is under way waits, never deadlocks. What can still wait: a lease row being renewed (the
--   renewal waits for no item row), and an add of an item in another transaction, which waits
--   for this one to commit (the deleted row is locked) and then adds to the row back inserted.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
held AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {table} r
	WHERE r.queue = :queue AND r.item = ANY(:items::text[]) AND r.token = ANY(:tokens::bigint[]) AND r.state = 1
	FOR UPDATE SKIP LOCKED),
gone AS (DELETE FROM {table} r USING held h WHERE r.queue = h.queue AND r.item = h.item AND r.token = h.token
	RETURNING r.queue, r.item, r.token, r.dirty_at, r.dirty_priority, r.trace),
ended AS (DELETE FROM {table}_lease l WHERE l.token = ANY(ARRAY(SELECT g.token FROM gone g ORDER BY g.token))),
back AS (INSERT INTO {table} (queue, item, state, priority, ready_at, seq, trace)
	SELECT g.queue, g.item, 0, g.dirty_priority, greatest(g.dirty_at, c.now), nextval('{table}_token'), g.trace
	FROM gone g, c WHERE g.dirty_at IS NOT NULL
	RETURNING ready_at),
forgets AS (SELECT * FROM unnest(array_fill(:queue::text, ARRAY[cardinality(:forget_items::text[])]), :forget_items::text[], :forget_kinds::text[]) AS f(queue, item, kind)),
forgettable AS MATERIALIZED (SELECT l.queue, l.item, l.kind FROM forgets f JOIN {table}_limit l
	ON l.queue = f.queue AND l.kind = f.kind AND l.item = f.item
	FOR UPDATE OF l SKIP LOCKED),
forgot AS (DELETE FROM {table}_limit l USING forgettable f WHERE l.queue = f.queue AND l.kind = f.kind AND l.item = f.item),
unforgotten AS (SELECT array_agg(f.item ORDER BY f.item, f.kind) AS items, array_agg(f.kind ORDER BY f.item, f.kind) AS kinds
	FROM forgets f
	WHERE (SELECT count(*) FROM forgettable) < cardinality(:forget_items::text[])
		AND NOT EXISTS (SELECT FROM forgettable g WHERE g.item = f.item AND g.kind = f.kind)
		AND EXISTS (SELECT FROM {table}_limit l WHERE l.queue = f.queue AND l.kind = f.kind AND l.item = f.item)),
skipped AS (SELECT array_agg(d.token ORDER BY d.token) AS tokens FROM unnest(:items::text[], :tokens::bigint[]) AS d(item, token)
	WHERE (SELECT count(*) FROM held) < cardinality(:tokens::bigint[]) AND d.token NOT IN (SELECT h.token FROM held h)
		AND EXISTS (SELECT FROM {table} r
		WHERE r.queue = :queue AND r.item = d.item AND r.token = d.token AND r.state = 1))
SELECT (SELECT count(*) FROM gone), (SELECT (extract(epoch FROM min(b.ready_at)) * 1000000)::bigint FROM back b), (extract(epoch FROM c.now) * 1000000)::bigint, (SELECT s.tokens FROM skipped s), (SELECT u.items FROM unforgotten u), (SELECT u.kinds FROM unforgotten u) FROM c
