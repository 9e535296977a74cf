-- limit_failures: reads the failures of an item in a shared failure-count limiter's row; an
--   expired count reads as none, even before the keeper's sweep deletes it.
-- Parameters:
--   :queue  the queue's name
--   :kind   the limiter's kind
--   :item   the encoded item
-- Returns: one row with the count, or none
-- Races: reads only (one snapshot).
SELECT count FROM {table}_limit
WHERE queue = :queue AND kind = :kind AND item = :item AND expires_at > statement_timestamp()
