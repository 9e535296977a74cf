-- hand_back: hands leases back in their place in line (they keep ready_at and seq, which the
--   claim did not change). Puts the rows back to the queued state, folding their dirty marks in.
--   A row another session locks is skipped (SKIP LOCKED) and named in skipped: the handle keeps
--   its lease as an orphan, and its keeper hands it back at a later run, so that it comes back
--   once the lock is gone rather than when its lease, renewed by nobody, runs out.
-- Twin: hand_back_after.sql (one lease, at the back of the line after a delay)
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :tokens  the tokens of the leases
-- Returns: one row: the rows handed back, and the tokens of the leases whose rows it skipped
--   (sorted, null if none)
-- Races: held locks the rows with FOR UPDATE SKIP LOCKED, by token and state 1: it waits for no
--   row (an application's transaction, an add's batch, a claim whose snapshot predates the row's
--   lease, which keeps its lock until it commits though the row no longer matches, or the
--   keeper's reap). skipped reads the snapshot (each lease row and its item row, by their keys),
--   so a lease ended meanwhile may be named skipped: the next hand-back finds no row for it.
--   ended deletes the lease rows in token order (= ANY on the primary key), the order renew.sql
--   locks them in: a hand-back and a renewal of the same leases never deadlock.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
held AS MATERIALIZED (SELECT r.queue, r.item, r.token FROM {table} r
	WHERE r.queue = :queue AND r.state = 1 AND r.token = ANY(:tokens::bigint[])
	FOR UPDATE SKIP LOCKED),
ended AS (DELETE FROM {table}_lease l WHERE l.token = ANY(ARRAY(SELECT e.token FROM held e ORDER BY e.token))),
back AS (UPDATE {table} r SET state = 0, token = NULL, holder = NULL, lease_until = NULL,
priority = greatest(r.priority, coalesce(r.dirty_priority, r.priority)),
dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END
FROM held, c WHERE r.queue = held.queue AND r.item = held.item
RETURNING r.item),
skipped AS (SELECT array_agg(l.token ORDER BY l.token) AS tokens FROM {table}_lease l
	JOIN {table} r ON r.queue = l.queue AND r.item = l.item AND r.token = l.token AND r.state = 1
	WHERE (SELECT count(*) FROM held) < cardinality(:tokens::bigint[]) AND l.token = ANY(:tokens::bigint[])
		AND NOT EXISTS (SELECT FROM held h WHERE h.token = l.token))
SELECT (SELECT count(*) FROM back), (SELECT s.tokens FROM skipped s)
