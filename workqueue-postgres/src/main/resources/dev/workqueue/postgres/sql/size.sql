-- size: Counts the ready items.
--
-- Twin: none
--
-- Parameters:
--   :now           the given clock's time in µs since the epoch, or null for the database's clock
--   :async_commit  whether the handle's own commits skip waiting for the disk (synchronous_commit off, for this transaction only)
--   :queue         the queue's name
--
-- Returns: one row: the count
--
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now
	FROM (SELECT CASE WHEN :async_commit THEN set_config('synchronous_commit', 'off', true) END) s)
SELECT count(*) FROM {table} r, c WHERE r.queue = :queue AND r.state = 0 AND r.ready_at <= c.now
