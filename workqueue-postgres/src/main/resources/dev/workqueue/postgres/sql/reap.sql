-- reap: queues expired leases again: the expired lease rows, then their item rows, both SKIP
--   LOCKED (a lease whose item row is locked waits for the next sweep). A lease whose item row
--   lost its token (deleted by hand) is deleted as stale: a token is on an item row only from
--   the claim that wrote its lease row, in the same transaction, so one missing from the
--   snapshot never comes back. Then the leases an earlier release kept in the item rows.
-- Parameters:
--   :now    the given clock's time in µs since the epoch, or null for the database's clock
--   :queue  the queue's name
--   :limit  the most rows to change
-- Returns: the update count
-- Races: SKIP LOCKED on both rows, and lease_until re-checked on the very rows it locks.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
expired AS MATERIALIZED (SELECT l.queue, l.item, l.token FROM {table}_lease l
	WHERE l.queue = :queue AND l.lease_until < (SELECT now FROM c)
	ORDER BY l.lease_until LIMIT :limit FOR UPDATE SKIP LOCKED),
freed AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {table} r
	JOIN expired e ON r.queue = e.queue AND r.item = e.item AND r.token = e.token
	WHERE r.state = 1 FOR UPDATE OF r SKIP LOCKED),
stale AS (SELECT e.token FROM expired e WHERE NOT EXISTS (SELECT 1 FROM {table} r
	WHERE r.queue = e.queue AND r.item = e.item AND r.token = e.token AND r.state = 1)),
earlier AS MATERIALIZED (SELECT r.queue, r.item FROM {table} r
	WHERE r.queue = :queue AND r.state = 1 AND r.lease_until < (SELECT now FROM c)
	ORDER BY r.lease_until LIMIT :limit FOR UPDATE SKIP LOCKED),
ended AS (DELETE FROM {table}_lease l USING (SELECT token FROM freed UNION ALL SELECT token FROM stale) e WHERE l.token = e.token)
UPDATE {table} r SET state = 0, token = NULL, holder = NULL, lease_until = NULL,
priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END,
	ready_at = c.now, seq = nextval('{table}_token')
FROM (SELECT f.queue, f.item FROM freed f UNION ALL SELECT o.queue, o.item FROM earlier o) x, c
WHERE r.queue = x.queue AND r.item = x.item
