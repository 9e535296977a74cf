-- dead_letter: moves a payload the codec cannot read out of the queue into a given-up record
--   ({table}_given_up, attempts 0, with the reason), in the statement that ends its lease: gone
--   deletes the leased row under its token, ended its lease row, kept writes the record
--   (replacing one of the same payload) and trimmed trims the queue's records to its bound, as
--   keep_given_up.sql does. With :keep 0 only gone and ended run: the payload leaves the queue
--   without a record, and the records other instances keep stay.
-- Twin: keep_given_up.sql (the record and trim alone)
-- Parameters:
--   :now        the given clock's time in µs since the epoch, or null for the database's clock
--   :queue      the queue's name
--   :item       the encoded item
--   :token      the lease's token
--   :reason     why the payload was moved aside
--   :holder     the handle's holder id
--   :keep       the most given-up records the queue keeps (0 for none)
--   :retention  how long a record is kept, in µs
-- Returns: one row: the rows ended (0 for a stale token: then nothing is written)
-- Races: gone deletes by token (EvalPlanQual re-check); the record and trim as keep_given_up.sql
--   (by the pair its snapshot read, so that a record given up again meanwhile stays).
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit}),
gone AS (DELETE FROM {table} WHERE queue = :queue AND item = :item AND token = :token AND state = 1
	RETURNING queue, item, token),
ended AS (DELETE FROM {table}_lease l USING gone e WHERE l.token = e.token),
kept AS (INSERT INTO {table}_given_up AS g (queue, item, attempts, reason, holder, given_up_at)
	SELECT e.queue, e.item, 0, :reason, :holder, c.now FROM gone e, c WHERE :keep::integer > 0
	ON CONFLICT (queue, item) DO UPDATE SET attempts = EXCLUDED.attempts, reason = EXCLUDED.reason,
		holder = EXCLUDED.holder, given_up_at = EXCLUDED.given_up_at),
trimmed AS (DELETE FROM {table}_given_up g
	WHERE :keep::integer > 0 AND EXISTS (SELECT FROM gone) AND g.queue = :queue AND g.item <> :item
		AND (g.given_up_at < (SELECT now FROM c) - :retention::bigint * interval '1 microsecond'
			OR (g.item, g.given_up_at) IN (SELECT o.item, o.given_up_at FROM {table}_given_up o
				WHERE o.queue = :queue AND o.item <> :item
				ORDER BY o.given_up_at DESC, o.item OFFSET greatest(:keep::integer - 1, 0))))
SELECT count(*) FROM gone
