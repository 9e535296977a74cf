-- claim: claims the next ready items of a queue: picked locks the next ready items in the
--   queue's order ({order:r}), claimed leases them (state 1, a new token) and takes their trace
--   records (read under the lock: the UPDATE returns only the new row), leased writes their
--   lease rows. An item that still waits for a kept delay keeps its parent for the hand-out the
--   delay brings. MATERIALIZED fences the planner: a LIMIT subquery inlined into the UPDATE may
--   run again per row and lease more than the limit.
--   A paused queue (its 'paused' row in {table}_limit, pause.sql) claims nothing: picked's NOT
--   EXISTS is one probe of that table's primary key, an InitPlan run once per statement whose
--   One-Time Filter skips the index scan while paused (EXPLAIN ANALYZE: 0.02 ms of a claim's 0.3
--   to 1 ms; pgbench, prepared, 1 client, 6 alternated 4 s runs on a table of 1,000,000 waiting
--   and 1,000 ready items, a machine busy with other builds: median 0.68 against 0.63 ms FIFO,
--   0.62 against 0.54 ms priority, within the runs' spread of ±50%).
-- Twin: claim_starving.sql (the items ready longer than :starvation first; a file of its own:
--   with a null :starvation it costs a claim 10 to 12% more, pgbench), done_claim.sql (a done
--   first)
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :limit   the most rows to change
--   :holder  the handle's holder id
--   :lease   the lease's length in µs
-- Returns: one row per item leased, in hand-out order, or one row of nulls: item, priority,
--   token, how long it was ready (µs), trace record; then on every row the time until the
--   earliest waiting item falls due (µs, null if none) and now (µs)
-- Races: FOR UPDATE SKIP LOCKED: two claims never lock the same row, and neither waits for the
--   other or for an application's lock.
-- Time: c.now is :now, or the statement's start; leases count from after any wait
--   (clock_timestamp): the hand-out time (leased_at, the inspection's) and the lease's end.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
picked AS MATERIALIZED (SELECT r.queue, r.item, false AS starving, r.trace FROM {table} r
	WHERE r.queue = :queue AND r.state = 0 AND r.ready_at <= (SELECT now FROM c)
		AND NOT EXISTS (SELECT FROM {table}_limit p WHERE p.queue = :queue AND p.kind = 'paused' AND p.item = '')
	ORDER BY {order:r} LIMIT :limit FOR UPDATE SKIP LOCKED),
claimed AS (UPDATE {table} r SET state = 1, token = nextval('{table}_token'), holder = :holder, lease_until = NULL,
		dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
		dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END,
		trace = CASE WHEN r.dirty_at > c.now THEN nullif(split_part(r.trace, E'\n', 1), '') END
	FROM picked, c WHERE r.queue = picked.queue AND r.item = picked.item
	RETURNING r.queue, r.item, r.priority, r.token, r.holder, r.ready_at, r.seq, picked.starving,
		picked.trace),
leased AS (INSERT INTO {table}_lease (token, queue, item, holder, leased_at, lease_until)
	SELECT k.token, k.queue, k.item, k.holder, h.at, h.at + :lease::bigint * interval '1 microsecond'
	FROM claimed k, c, LATERAL (SELECT c.now + (clock_timestamp() - statement_timestamp()) AS at) h)
SELECT k.item, k.priority, k.token, (extract(epoch FROM c.now - k.ready_at) * 1000000)::bigint, k.trace, (extract(epoch FROM d.due - c.now) * 1000000)::bigint, (extract(epoch FROM c.now) * 1000000)::bigint
FROM c CROSS JOIN (SELECT min(w.ready_at) AS due FROM {table} w
	WHERE w.queue = :queue AND w.state = 0 AND w.ready_at > (SELECT now FROM c)) d
LEFT JOIN claimed k ON true
ORDER BY {order:k}
