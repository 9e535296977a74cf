-- mark_read: reads a queue's store mark (the format and the kind of clock its data is kept in)
--   and its live gauge reporter, whose role an instance of the previous release takes without a
--   mark; and what of this release's schema the tables lack (a table of an earlier release whose
--   schema script was not run again): the given-up records' table, then the leases' hand-out
--   column.
-- Twin: mark_write.sql (writes the mark when there is none)
-- Parameters:
--   :queue  the queue's name
-- Returns: one row: the mark's format and clock kind (nulls for none), the live reporter's
--   holder and the end of its role (nulls for none), the first table or column missing (null
--   for none)
-- Races: reads only; a mark missing here is written by mark_write.sql, whose upsert keeps the
--   first one written.
SELECT m.count, m.holder, g.holder, g.at,
	CASE WHEN to_regclass('{table}_given_up') IS NULL THEN 'table {table}_given_up'
		WHEN NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = to_regclass('{table}_lease')
			AND attname = 'leased_at' AND NOT attisdropped) THEN 'column leased_at of table {table}_lease' END
FROM (SELECT 1) one
LEFT JOIN {table}_limit m ON m.queue = :queue AND m.kind = 'mark' AND m.item = ''
LEFT JOIN {table}_limit g ON g.queue = :queue AND g.kind = 'gauges' AND g.item = ''
	AND g.at > statement_timestamp()
