-- done_waiting: ends one lease whose item's row another transaction held when done.sql or
--   done_claim.sql ran (they skip such rows), waiting for that row: gone deletes it if its
--   token still holds it, ended its lease row, back queues it again if it was added while
--   processing (its dirty mark). Its history to forget went with the statement that skipped it.
-- Twin: done.sql (a group, SKIP LOCKED: a statement that waits must hold no other item's row,
--   so one lease each)
-- Parameters:
--   :now    the given clock's time in µs since the epoch, or null for the database's clock
--   :queue  the queue's name
--   :item   the encoded item
--   :token  the lease's token
-- Returns: one row: rows ended (0 for a stale token), the ready time of the item queued again
--   (µs, null if none), now (µs)
-- Races: the DELETE by token re-checks the row after waiting for the other transaction
--   (EvalPlanQual): a stale done (the lease ran out, the item was claimed again or the row
--   deleted) changes nothing. It waits holding nothing: one item row, then its lease row,
--   which a renewal locks without waiting for any item row.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
gone AS (DELETE FROM {table} r WHERE r.queue = :queue AND r.item = :item AND r.token = :token AND r.state = 1
	RETURNING r.queue, r.item, r.token, r.dirty_at, r.dirty_priority, r.trace),
ended AS (DELETE FROM {table}_lease l USING gone g WHERE l.token = g.token),
back AS (INSERT INTO {table} (queue, item, state, priority, ready_at, seq, trace)
	SELECT g.queue, g.item, 0, g.dirty_priority, greatest(g.dirty_at, c.now), nextval('{table}_token'), g.trace
	FROM gone g, c WHERE g.dirty_at IS NOT NULL
	RETURNING ready_at)
SELECT (SELECT count(*) FROM gone), (SELECT (extract(epoch FROM min(b.ready_at)) * 1000000)::bigint FROM back b), (extract(epoch FROM c.now) * 1000000)::bigint FROM c
