-- forget: deletes an item's limiter history on its own (a Forgets call when no done carries
--   it).
-- Parameters:
--   :kinds  the limiter kinds whose history of the item to forget (empty for none)
--   :queue  the queue's name
--   :item   the encoded item
-- Returns: nothing
-- Races: one DELETE by primary key: it runs alone.
DELETE FROM {table}_limit l USING unnest(:kinds::text[]) AS k(kind) WHERE l.queue = :queue AND l.kind = k.kind AND l.item = :item
