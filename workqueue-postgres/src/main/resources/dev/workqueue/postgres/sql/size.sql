-- size: counts the ready items.
-- Parameters:
--   :now    the given clock's time in µs since the epoch, or null for the database's clock
--   :queue  the queue's name
-- Returns: one row: the count
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})
SELECT count(*) FROM {table} r, c WHERE r.queue = :queue AND r.state = 0 AND r.ready_at <= c.now
