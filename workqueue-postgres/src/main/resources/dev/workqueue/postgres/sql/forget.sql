-- forget: deletes an item's limiter history on its own (a Forgets call when no done carries
--   it). The queue is a column of the kinds (array_fill), so that each kind is one probe of the
--   primary key whatever the planner thinks of :queue (as done.sql's forgot): with l.queue =
--   :queue, a queue the last ANALYZE did not see was estimated at one row and the index read
--   across every kind of the queue's history for the item (0.8 ms at 20,000 rows).
-- Parameters:
--   :queue  the queue's name
--   :kinds  the limiter kinds whose history of the item to forget (empty for none)
--   :item   the encoded item
-- Returns: nothing
-- Races: one DELETE by primary key: it runs alone.
DELETE FROM {table}_limit l USING unnest(array_fill(:queue::text, ARRAY[cardinality(:kinds::text[])]), :kinds::text[]) AS k(queue, kind)
WHERE l.queue = k.queue AND l.kind = k.kind AND l.item = :item
