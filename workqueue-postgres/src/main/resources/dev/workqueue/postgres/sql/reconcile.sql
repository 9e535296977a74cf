-- reconcile: hands back the leases of this holder that it does not know of (claims whose answer
--   was lost). Puts the rows back to the queued state, folding their dirty marks in. A row
--   another session locks is skipped (SKIP LOCKED) and counted in skipped: the keeper looks
--   again at a later run.
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :holder  the handle's holder id
--   :tokens  the tokens of the leases
-- Returns: one row: the rows handed back, and how many such rows it skipped
-- Races: lost locks the rows with FOR UPDATE SKIP LOCKED, by holder and state 1; skipped reads
--   the snapshot, so a row queued again meanwhile may be counted: the next look finds it gone.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
lost AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {table} r
	WHERE r.queue = :queue AND r.state = 1 AND r.holder = :holder AND r.token <> ALL(:tokens::bigint[])
	FOR UPDATE SKIP LOCKED),
ended AS (DELETE FROM {table}_lease l USING lost e WHERE l.token = e.token),
back AS (UPDATE {table} r SET state = 0, token = NULL, holder = NULL, lease_until = NULL,
priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END
FROM lost, c WHERE r.queue = lost.queue AND r.item = lost.item
RETURNING r.item)
SELECT (SELECT count(*) FROM back), (SELECT count(*) FROM {table} r
	WHERE r.queue = :queue AND r.state = 1 AND r.holder = :holder AND r.token <> ALL(:tokens::bigint[])
		AND NOT EXISTS (SELECT FROM lost o WHERE o.item = r.item))
