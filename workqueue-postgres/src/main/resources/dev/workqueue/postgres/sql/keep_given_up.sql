-- keep_given_up: keeps a record of an item given up on, replacing the item's earlier record, and
--   trims the queue's records to its bound: kept writes the record, trimmed deletes the others
--   past their retention and those beyond the newest :keep - 1. The new record is the newest: its
--   time is now. A bound of 0 runs nothing (PostgresInspection): this instance keeps no records,
--   and leaves those that other instances keep.
-- Twin: dead_letter.sql (the same record and trim for a payload the codec cannot decode, in the
--   statement that ends its lease)
-- Parameters:
--   :now        the given clock's time in µs since the epoch, or null for the database's clock
--   :queue      the queue's name
--   :item       the encoded item
--   :attempts   its failed attempts
--   :reason     why it was given up
--   :holder     the handle's holder id
--   :retention  how long a record is kept, in µs
--   :keep       the most records the queue keeps, at least 1
-- Returns: the number of records written (1)
-- Races: the upsert locks the item's record before it replaces it. trimmed picks the records to
--   delete by (item, given_up_at) as its snapshot read them: a record another statement gave up
--   again meanwhile (now the newest) is re-checked after the wait for its row lock
--   (EvalPlanQual), no longer matches and stays; one deleted meanwhile is skipped. Each statement
--   reads the records in its snapshot: two give-ups at once may each keep the other's record
--   beyond the bound, which the next one trims. Two trims that delete the same rows in other
--   orders may deadlock: the server rolls one back, and QueueDatabase runs it again.
-- Time: c.now is :now, or the statement's start.
-- Plan: the upsert probes the primary key; trimmed reads {name}_givenup_at backward past the
--   newest :keep - 1 records (in time that grows with :keep) and its range past the retention.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now),
kept AS (INSERT INTO {table}_given_up AS g (queue, item, attempts, reason, holder, given_up_at)
	SELECT :queue, :item, :attempts, :reason, :holder, c.now FROM c
	ON CONFLICT (queue, item) DO UPDATE SET attempts = EXCLUDED.attempts, reason = EXCLUDED.reason,
		holder = EXCLUDED.holder, given_up_at = EXCLUDED.given_up_at
	RETURNING g.item),
trimmed AS (DELETE FROM {table}_given_up g
	WHERE g.queue = :queue AND g.item <> :item
		AND (g.given_up_at < (SELECT now FROM c) - :retention::bigint * interval '1 microsecond'
			OR (g.item, g.given_up_at) IN (SELECT o.item, o.given_up_at FROM {table}_given_up o
				WHERE o.queue = :queue AND o.item <> :item
				ORDER BY o.given_up_at DESC, o.item OFFSET :keep::integer - 1)))
SELECT count(*) FROM kept
