-- given_up_expire: deletes a batch of the queue's given-up records past its retention, which no
--   list shows or counts; each handle that keeps records runs it about once a minute, until a
--   batch comes back short, so that a queue that no longer gives up keeps none of them for good
--   (a give-up deletes them too, in its own statement).
-- Parameters:
--   :now        the given clock's time in µs since the epoch, or null for the database's clock
--   :queue      the queue's name
--   :retention  how long a record is kept, in µs
--   :batch      the most records to delete
-- Returns: the delete count
-- Races: the subquery locks what it picks (SKIP LOCKED): a record a give-up is replacing is left,
--   and that give-up's own trim deletes what is still past the retention.
-- Time: c.now is :now, or the statement's start.
-- Plan: an index range scan of {name}_givenup_at up to the retention's start, cut by the batch.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})
DELETE FROM {table}_given_up WHERE (queue, item) IN (SELECT g.queue, g.item FROM {table}_given_up g, c
	WHERE g.queue = :queue AND g.given_up_at < c.now - :retention::bigint * interval '1 microsecond'
	LIMIT :batch FOR UPDATE OF g SKIP LOCKED)
