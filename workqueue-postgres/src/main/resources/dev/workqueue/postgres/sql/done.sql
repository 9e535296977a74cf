-- done: ends a hold: gone deletes the item's row if :token still holds it, ended its lease row,
--   back queues it again if it was added while processing (its dirty mark: the earliest time
--   and the highest priority), forgot deletes the limiter history its failure counts forgot
--   while it was held (part of every done, so a success costs no statement of its own; a join
--   on the kinds: each kind one probe of the primary key).
-- Twin: done_claim.sql (then claims, in the same statement; a file of its own: done_claim.sql
--   with :limit 0 costs a done 85 to 96% more, pgbench, for a claim half planned and run for
--   nothing)
-- Parameters:
--   :now    the given clock's time in µs since the epoch, or null for the database's clock
--   :queue  the queue's name
--   :item   the encoded item
--   :token  the lease's token
--   :kinds  the limiter kinds whose history of the item to forget (empty for none)
-- Returns: one row: rows ended (0 for a stale token), the ready time of the item queued again
--   (µs, null if none), now (µs)
-- Races: the DELETE by token re-checks the row after waiting for a concurrent writer
--   (EvalPlanQual): a stale done (the lease ran out and the item was claimed again) changes
--   nothing.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
gone AS (DELETE FROM {table} WHERE queue = :queue AND item = :item AND token = :token AND state = 1
	RETURNING queue, item, token, dirty_at, dirty_priority, trace),
ended AS (DELETE FROM {table}_lease l USING gone e WHERE l.token = e.token),
back AS (INSERT INTO {table} (queue, item, state, priority, ready_at, seq, trace)
	SELECT g.queue, g.item, 0, g.dirty_priority, greatest(g.dirty_at, c.now), nextval('{table}_token'), g.trace
	FROM gone g, c WHERE g.dirty_at IS NOT NULL
	RETURNING ready_at),
forgot AS (DELETE FROM {table}_limit l USING unnest(:kinds::text[]) AS k(kind) WHERE l.queue = :queue AND l.kind = k.kind AND l.item = :item)
SELECT (SELECT count(*) FROM gone), (extract(epoch FROM b.ready_at) * 1000000)::bigint, (extract(epoch FROM c.now) * 1000000)::bigint FROM c LEFT JOIN back b ON true
