-- hand_back_after: hands one lease back at the back of the line after a delay: as an add of an
--   item that is not queued, folded with its dirty mark (the earliest of the two times, the
--   higher priority).
-- Twin: hand_back.sql (many, in their place)
-- Parameters:
--   :now    the given clock's time in µs since the epoch, or null for the database's clock
--   :queue  the queue's name
--   :token  the lease's token
--   :delay  the delay in µs (0 for none)
-- Returns: the time until the item is ready (µs), one row if the token still held it
-- Races: held locks the row FOR UPDATE by token and state 1: a stale token changes nothing.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
held AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {table} r
	WHERE r.queue = :queue AND r.state = 1 AND r.token = :token FOR UPDATE),
ended AS (DELETE FROM {table}_lease l USING held e WHERE l.token = e.token)
UPDATE {table} r SET state = 0, token = NULL, holder = NULL, lease_until = NULL,
	ready_at = least(c.now + :delay::bigint * interval '1 microsecond',
		greatest(coalesce(r.dirty_at, 'infinity'), c.now)),
	seq = nextval('{table}_token'),
	priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
	dirty_at = NULL, dirty_priority = NULL
FROM held, c WHERE r.queue = held.queue AND r.item = held.item
RETURNING (extract(epoch FROM r.ready_at - c.now) * 1000000)::bigint
