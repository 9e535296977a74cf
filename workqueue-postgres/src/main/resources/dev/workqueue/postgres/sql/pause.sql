-- pause: pauses a queue: writes its 'paused' row in {table}_limit (item '', kept until resume.sql
--   deletes it), which every claim statement reads before it locks a row.
-- Twin: resume.sql (deletes the row and wakes the consumers)
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :holder  the handle's holder id
-- Returns: the insert count (0 if the queue was paused already)
-- Races: the insert's ON CONFLICT makes two pauses at once one row. A claim whose snapshot was
--   taken before the commit still claims: a pause stops the claims that start after it.
-- Time: c.now is :now, or the statement's start.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now)
INSERT INTO {table}_limit (queue, kind, item, count, at, holder, expires_at)
SELECT :queue, 'paused', '', 0, c.now, :holder, 'infinity' FROM c
ON CONFLICT (queue, kind, item) DO NOTHING
