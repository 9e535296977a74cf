-- mark_write: writes a queue's store mark unless one exists, and answers the mark kept.
-- Twin: mark_read.sql
-- Parameters:
--   :queue   the queue's name
--   :format  this release's format
--   :clock   the kind of clock ('database' or 'given')
-- Returns: one row: the format and clock kind of the mark kept (the first one written)
-- Races: the upsert's ON CONFLICT locks the row and leaves it as it is: of two instances
--   marking at once, both read the first mark.
INSERT INTO {table}_limit AS l (queue, kind, item, count, holder, at, expires_at)
VALUES (:queue, 'mark', '', :format, :clock, statement_timestamp(), 'infinity')
ON CONFLICT (queue, kind, item) DO UPDATE SET count = l.count
RETURNING l.count, l.holder
