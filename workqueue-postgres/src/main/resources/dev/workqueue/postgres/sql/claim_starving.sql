-- claim_starving: as claim.sql, with the starvation guard: the items ready longer than
--   :starvation come first, oldest first, then the others in the queue's order, up to :limit in
--   all. A file of its own, not a nullable parameter of claim.sql: that fold cost a claim
--   without the guard 10.4% (priority) and 11.5% (FIFO) more (pgbench, prepared, side by side),
--   since the union of two LIMIT CTEs changes the plan of the hottest statement.
--   A paused queue claims nothing: starving's and fresh's NOT EXISTS, as claim.sql's pause.
-- Twin: claim.sql (no guard)
-- Parameters:
--   :now         the given clock's time in µs since the epoch, or null for the database's clock
--   :queue       the queue's name
--   :starvation  how long in µs an item may be ready before it comes first
--   :limit       the most rows to change
--   :holder      the handle's holder id
--   :lease       the lease's length in µs
-- Returns: one row per item leased, in hand-out order, or one row of nulls: item, priority,
--   token, how long it was ready (µs), trace record; then on every row the time until the
--   earliest waiting item falls due (µs, null if none) and now (µs); starving items first
-- Races: FOR UPDATE SKIP LOCKED: two claims never lock the same row, and neither waits for the
--   other or for an application's lock.
-- Time: c.now is :now, or the statement's start; leases count from after any wait
--   (clock_timestamp): the hand-out time (leased_at, the inspection's) and the lease's end.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
starving AS MATERIALIZED (SELECT r.queue, r.item, true AS starving, r.trace FROM {table} r
	WHERE r.queue = :queue AND r.state = 0
		AND NOT EXISTS (SELECT FROM {table}_limit p WHERE p.queue = :queue AND p.kind = 'paused' AND p.item = '')
		AND r.ready_at < (SELECT now FROM c) - :starvation::bigint * interval '1 microsecond'
	ORDER BY r.ready_at, r.seq LIMIT :limit FOR UPDATE SKIP LOCKED),
fresh AS MATERIALIZED (SELECT r.queue, r.item, false AS starving, r.trace FROM {table} r
	WHERE r.queue = :queue AND r.state = 0 AND r.ready_at <= (SELECT now FROM c)
		AND NOT EXISTS (SELECT FROM {table}_limit p WHERE p.queue = :queue AND p.kind = 'paused' AND p.item = '')
		AND r.ready_at >= (SELECT now FROM c) - :starvation::bigint * interval '1 microsecond'
	ORDER BY {order:r} LIMIT :limit::bigint - (SELECT count(*) FROM starving) FOR UPDATE SKIP LOCKED),
picked AS (SELECT * FROM starving UNION ALL SELECT * FROM fresh),
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
ORDER BY k.starving DESC, CASE WHEN k.starving THEN 0 ELSE -k.priority END, k.ready_at, k.seq
