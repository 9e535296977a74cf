-- reconcile: hands back the leases of this holder that it does not know of (claims whose answer
--   was lost), but for those whose item row another session locks (they run out). Puts the rows
--   back to the queued state, folding their dirty marks in.
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :holder  the handle's holder id
--   :tokens  the tokens of the leases
-- Returns: the update count
-- Races: lost locks the rows with FOR UPDATE SKIP LOCKED, by holder and state 1.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
lost AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {table} r
	WHERE r.queue = :queue AND r.state = 1 AND r.holder = :holder AND r.token <> ALL(:tokens::bigint[])
	FOR UPDATE SKIP LOCKED),
ended AS (DELETE FROM {table}_lease l USING lost e WHERE l.token = e.token)
UPDATE {table} r SET state = 0, token = NULL, holder = NULL, lease_until = NULL,
priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END
FROM lost, c WHERE r.queue = lost.queue AND r.item = lost.item
