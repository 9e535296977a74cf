-- items_waiting: lists a page of the waiting items by when they fall due, soonest first, each
--   with the failures max-retries counts for it (as items_ready.sql): the delayed rows (queued,
--   ready_at still ahead), and the waits kept in a dirty mark that is not over yet, of a ready
--   row (an add that overtook a wait, or an addAfter of a ready item: ReadyOrder#keepsWaits) or of
--   a processing one (an addAfter while it was handed out), at dirty_priority. An item is listed
--   once per wait, as find.sql shows it.
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :limit   the most rows
--   :offset  how many to skip
-- Returns: one row per wait, soonest first: item, priority, when it falls due (µs since the
--   epoch), failures counted (0 for none)
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start.
-- Plan: the delayed rows by an index scan of {name}_due from now on, cut at the page's end; the
--   dirty marks by a scan of the ready rows ({name}_due up to now) and of the processing ones
--   ({name}_leases), which no index orders by dirty_at: the page costs a read of every ready row,
--   paid only here (an index on dirty_at would cost every dirty add its HOT update). The page's
--   rows are then joined to the limit table. EXPLAIN ANALYZE, the first page of 100 on a table
--   of 1,000,000 waiting items: 14 to 23 ms with 100,000 ready beside them, 212 to 220 ms with
--   1,100,000 (the ready rows' bitmap scan; 0.34 to 0.42 ms before it read them).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now),
w AS ((SELECT r.item, r.priority, r.ready_at AS due, r.seq FROM {table} r
		WHERE r.queue = :queue AND r.state = 0 AND r.ready_at > (SELECT now FROM c)
		ORDER BY r.ready_at, r.seq LIMIT :limit::bigint + :offset)
	UNION ALL
	SELECT r.item, r.dirty_priority, r.dirty_at, r.seq FROM {table} r
		WHERE r.queue = :queue AND r.state = 0 AND r.ready_at <= (SELECT now FROM c) AND r.dirty_at > (SELECT now FROM c)
	UNION ALL
	SELECT r.item, r.dirty_priority, r.dirty_at, r.seq FROM {table} r
		WHERE r.queue = :queue AND r.state = 1 AND r.dirty_at > (SELECT now FROM c))
SELECT w.item, w.priority, (extract(epoch FROM w.due) * 1000000)::bigint, coalesce(f.count, 0)
FROM w
LEFT JOIN {table}_limit f ON f.queue = :queue AND f.kind = 'failures:attempts' AND f.item = w.item
	AND f.expires_at > statement_timestamp()
ORDER BY w.due, w.seq LIMIT :limit OFFSET :offset
