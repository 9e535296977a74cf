-- limit_delete: deletes an item's row of one limiter kind (its failure count, its token
--   bucket).
-- Parameters:
--   :queue  the queue's name
--   :kind   the limiter's kind
--   :item   the encoded item
-- Returns: the delete count
-- Races: one DELETE by primary key.
DELETE FROM {table}_limit WHERE queue = :queue AND kind = :kind AND item = :item
