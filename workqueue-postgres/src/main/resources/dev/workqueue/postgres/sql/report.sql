-- report: takes or keeps the reporter role of the shared gauges (row kind 'gauges' of the limit
--   table).
-- Twin: resign.sql (gives it up)
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :lapse   how long in µs the role lasts without a new report
--   :holder  the handle's holder id
-- Returns: the holder, one row if this handle holds the role
-- Races: the upsert locks the role's row before its WHERE reads it: one holder at a time.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})
INSERT INTO {table}_limit AS l (queue, kind, item, count, at, holder, expires_at)
SELECT q.queue, 'gauges', '', 0, q.lapse, q.holder, q.lapse
FROM (SELECT :queue::text AS queue, c.now + :lapse::bigint * interval '1 microsecond' AS lapse, :holder::text AS holder
	FROM c) q
ON CONFLICT (queue, kind, item) DO UPDATE SET at = EXCLUDED.at, holder = EXCLUDED.holder,
	expires_at = EXCLUDED.expires_at
WHERE l.holder = EXCLUDED.holder OR l.at < (SELECT now FROM c)
RETURNING l.holder
