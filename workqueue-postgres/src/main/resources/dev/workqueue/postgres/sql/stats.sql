-- stats: the shared gauges of a queue.
-- Parameters:
--   :now    the given clock's time in µs since the epoch, or null for the database's clock
--   :queue  the queue's name
-- Returns: one row: ready, processing, waiting, dirty while processing, how long the next item
--   to hand out has been ready (µs, null if none). Waiting counts every wait not over yet: a
--   delayed row, and the dirty mark of a ready row (a wait its add kept) or of a processing one
--   (an addAfter while it was handed out), each due later; dirty while processing counts the
--   marks due already (client-go's dirty set), as in memory.
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})
SELECT count(*) FILTER (WHERE r.state = 0 AND r.ready_at <= c.now),
	count(*) FILTER (WHERE r.state = 1),
	count(*) FILTER (WHERE r.state = 0 AND r.ready_at > c.now)
		+ count(*) FILTER (WHERE r.dirty_at > c.now AND (r.state = 1 OR r.ready_at <= c.now)),
	count(*) FILTER (WHERE r.state = 1 AND r.dirty_at <= c.now),
	(SELECT (extract(epoch FROM (SELECT now FROM c) - h.ready_at) * 1000000)::bigint FROM {table} h WHERE h.queue = :queue AND h.state = 0 AND h.ready_at <= (SELECT now FROM c)
		ORDER BY {order:h} LIMIT 1)
FROM {table} r, c WHERE r.queue = :queue
