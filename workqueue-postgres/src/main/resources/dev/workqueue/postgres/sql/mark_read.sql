-- mark_read: reads a queue's store mark (the format and the kind of clock its data is kept in)
--   and its live gauge reporter, whose role an instance of the previous release takes without a
--   mark.
-- Twin: mark_write.sql (writes the mark when there is none)
-- Parameters:
--   :queue  the queue's name
-- Returns: one row: the mark's format and clock kind (nulls for none), the live reporter's
--   holder and the end of its role (nulls for none)
-- Races: reads only; a mark missing here is written by mark_write.sql, whose upsert keeps the
--   first one written.
SELECT m.count, m.holder, g.holder, g.at FROM (SELECT 1) one
LEFT JOIN {table}_limit m ON m.queue = :queue AND m.kind = 'mark' AND m.item = ''
LEFT JOIN {table}_limit g ON g.queue = :queue AND g.kind = 'gauges' AND g.item = ''
	AND g.at > statement_timestamp()
