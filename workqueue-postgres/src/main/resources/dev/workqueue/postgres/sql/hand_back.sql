-- hand_back: hands leases back in their place in line (they keep ready_at and seq, which the
--   claim did not change), but for those whose item row another session locks (SKIP LOCKED: a
--   row skipped keeps its lease, which nobody renews any more, and comes back when it runs
--   out). Puts the rows back to the queued state, folding their dirty marks in.
-- Twin: hand_back_after.sql (one lease, at the back of the line after a delay)
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :tokens  the tokens of the leases
-- Returns: the update count
-- Races: held locks the rows with FOR UPDATE SKIP LOCKED, by token and state 1.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
held AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {table} r
	WHERE r.queue = :queue AND r.state = 1 AND r.token = ANY(:tokens::bigint[])
	FOR UPDATE SKIP LOCKED),
ended AS (DELETE FROM {table}_lease l USING held e WHERE l.token = e.token)
UPDATE {table} r SET state = 0, token = NULL, holder = NULL, lease_until = NULL,
priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END
FROM held, c WHERE r.queue = held.queue AND r.item = held.item
