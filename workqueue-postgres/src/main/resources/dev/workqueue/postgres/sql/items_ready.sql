-- items_ready: lists a page of the ready items (queued, ready_at passed) in hand-out order
--   ({order:r}), each with the failures max-retries counts for it (its 'failures:attempts' row in
--   {table}_limit, one probe of that table's primary key per item listed).
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :limit   the most rows
--   :offset  how many to skip
-- Returns: one row per item, in hand-out order: item, priority, when it became ready (µs since
--   the epoch), failures counted (0 for none)
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start.
-- Plan: the index of the queue's order read in order from the queue's start and cut by the
--   limit, each row joined to the limit table's primary key (nested loop); EXPLAIN ANALYZE, the
--   first page of 100 on a table of 1,000,000 waiting and 1,000 ready items: FIFO an index scan
--   of {name}_due on the ready range, 0.36 to 0.40 ms; priorities an index scan of {name}_ready
--   with ready_at <= now checked in the index, 0.4 to 1.0 ms. As claim.sql's pick, that scan
--   steps over the index entries of waiting items at priorities above the first ready one: with
--   all 1,000,000 waiting items above the ready ones, 115 ms (claim.sql's pick 98 ms).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now)
SELECT r.item, r.priority, (extract(epoch FROM r.ready_at) * 1000000)::bigint, coalesce(f.count, 0)
FROM {table} r
LEFT JOIN {table}_limit f ON f.queue = r.queue AND f.kind = 'failures:attempts' AND f.item = r.item
	AND f.expires_at > statement_timestamp()
WHERE r.queue = :queue AND r.state = 0 AND r.ready_at <= (SELECT now FROM c)
ORDER BY {order:r} LIMIT :limit OFFSET :offset
