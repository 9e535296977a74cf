-- given_up_count: counts the queue's given-up records, those past their retention left out.
-- Parameters:
--   :now        the given clock's time in µs since the epoch, or null for the database's clock
--   :queue      the queue's name
--   :retention  how long a record is kept, in µs
-- Returns: one row: the count
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start.
-- Plan: a range of {name}_givenup_at (an index-only scan once the table is vacuumed), in time
--   that grows with the records kept (the bound's keep, 1,000 unless told): 77 to 128 ms for
--   1,000,000 records (EXPLAIN ANALYZE, pages cached).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now)
SELECT count(*) FROM {table}_given_up g
WHERE g.queue = :queue
	AND g.given_up_at >= (SELECT now FROM c) - :retention::bigint * interval '1 microsecond'
