-- done_claim: ends holds (the dones of a group: the owed dones of every consumer of the handle
--   whose look this claim makes), then claims: done.sql's CTEs, then claim.sql's. The claim
--   cannot see the rows the dones queue again (one snapshot): they wait for the next claim, as
--   client-go's done does (back of the line). The dones skip the rows another transaction locks
--   (done.sql's held and forgettable), and the claim then claims none (picked reads skipped and
--   unforgotten): its items would wait while the handle ends those dones in done_waiting.sql and
--   forgets that history in forget.sql, which may wait for an application's commit; the handle
--   claims again after them.
--   A paused queue (its 'paused' row in {table}_limit, pause.sql) claims nothing: picked's NOT
--   EXISTS is one probe of that table's primary key, an InitPlan run once per statement whose
--   One-Time Filter skips the index scan while paused (EXPLAIN ANALYZE: 0.02 ms of a claim's 0.3
--   to 1 ms; pgbench, prepared, 1 client, 6 alternated 4 s runs on a table of 1,000,000 waiting
--   and 1,000 ready items, a machine busy with other builds: median 0.68 against 0.63 ms FIFO,
--   0.62 against 0.54 ms priority, within the runs' spread of ±50%).
-- Twin: done.sql and claim.sql (its halves), done_claim_starving.sql (with the starvation
--   guard; a file of its own: with a null :starvation it costs 16 to 20% more, pgbench)
-- Parameters:
--   :now           the given clock's time in µs since the epoch, or null for the database's clock
--   :queue         the queue's name
--   :items         the encoded items of the dones, one per lease (at least one)
--   :tokens        the leases' tokens, parallel to :items
--   :forget_items  the items whose limiter history to forget, one per (item, kind) pair (empty
--                  for none)
--   :forget_kinds  the limiter kinds of those pairs, parallel to :forget_items
--   :limit         the most rows to change
--   :holder        the handle's holder id
--   :lease         the lease's length in µs
-- Returns: claim.sql's columns, then on every row done.sql's rows ended, earliest ready time
--   (µs), skipped tokens, unforgotten items and kinds (null if none)
-- Races: the dones as done.sql's (SKIP LOCKED: they wait for no item or history row; a stale
--   done changes nothing; lease rows deleted in renew.sql's order). FOR UPDATE SKIP LOCKED in
--   the claim too: two claims never lock the same row, and neither waits for the other or for
--   an application's lock; the statement as a whole waits for no row.
-- Time: c.now is :now, or the statement's start; leases count from after any wait
--   (clock_timestamp): the hand-out time (leased_at, the inspection's) and the lease's end.
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
		WHERE r.queue = :queue AND r.item = d.item AND r.token = d.token AND r.state = 1)),
picked AS MATERIALIZED (SELECT r.queue, r.item, false AS starving, r.trace FROM {table} r
	WHERE r.queue = :queue AND r.state = 0 AND r.ready_at <= (SELECT now FROM c) AND (SELECT s.tokens FROM skipped s) IS NULL AND (SELECT u.items FROM unforgotten u) IS NULL
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
SELECT k.item, k.priority, k.token, (extract(epoch FROM c.now - k.ready_at) * 1000000)::bigint, k.trace, (extract(epoch FROM d.due - c.now) * 1000000)::bigint, (extract(epoch FROM c.now) * 1000000)::bigint, (SELECT count(*) FROM gone), (SELECT (extract(epoch FROM min(b.ready_at)) * 1000000)::bigint FROM back b),
	(SELECT s.tokens FROM skipped s), (SELECT u.items FROM unforgotten u), (SELECT u.kinds FROM unforgotten u)
FROM c CROSS JOIN (SELECT min(w.ready_at) AS due FROM {table} w
	WHERE w.queue = :queue AND w.state = 0 AND w.ready_at > (SELECT now FROM c)) d
LEFT JOIN claimed k ON true
ORDER BY {order:k}
