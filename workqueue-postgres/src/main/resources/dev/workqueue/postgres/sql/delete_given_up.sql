-- delete_given_up: deletes an item's given-up record, whichever is kept or only the one given up
--   at a time (a re-add deletes the record it sent through, not one of a give-up since).
-- Parameters:
--   :now        the given clock's time in µs since the epoch, or null for the database's clock
--   :queue      the queue's name
--   :item       the encoded item
--   :at         when the record to delete was given up, in µs since the epoch (as the lists
--               show it), or null for whichever is kept
--   :retention  how long a record is kept, in µs
-- Returns: one row: how many records it deleted that were still kept (0 or 1: a record past its
--   retention, which no list shows, counts as none)
-- Races: the delete locks the record; a concurrent replacement applies before or after it.
-- Time: c.now is :now, or the statement's start.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now),
gone AS (DELETE FROM {table}_given_up WHERE queue = :queue AND item = :item
	AND (:at::bigint IS NULL OR given_up_at = timestamptz 'epoch' + :at::bigint * interval '1 microsecond')
	RETURNING given_up_at)
SELECT count(*) FROM gone
WHERE gone.given_up_at >= (SELECT now FROM c) - :retention::bigint * interval '1 microsecond'
