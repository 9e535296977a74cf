-- dead_letter: moves a payload the codec cannot read aside, into the limit table (kind
--   'dead-letter').
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :item    the encoded item
--   :token   the lease's token
--   :reason  why the payload was moved aside
-- Returns: the insert count
-- Races: gone deletes by token (EvalPlanQual re-check); the upsert locks the dead-letter row.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
gone AS (DELETE FROM {table} WHERE queue = :queue AND item = :item AND token = :token AND state = 1
	RETURNING queue, item, token),
ended AS (DELETE FROM {table}_lease l USING gone e WHERE l.token = e.token)
INSERT INTO {table}_limit AS l (queue, kind, item, count, at, holder, expires_at)
SELECT g.queue, 'dead-letter', g.item, 1, c.now, :reason, 'infinity' FROM gone g, c
ON CONFLICT (queue, kind, item) DO UPDATE SET count = l.count + 1, at = EXCLUDED.at,
	holder = EXCLUDED.holder
