-- limit_count: counts one more failure of an item in a shared failure-count limiter's row of
--   {table}_limit. An expired count starts over (the keeper's sweep may not have run yet); the
--   count stops at the largest integer.
-- Parameters:
--   :queue       the queue's name
--   :kind        the limiter's kind
--   :item        the encoded item
--   :ttl_millis  how long the count lives after this failure, in ms (database time)
-- Returns: one row: the failures before this one
-- Races: the upsert's ON CONFLICT locks the row before its SET reads it: instances counting the
--   same item go one after the other.
INSERT INTO {table}_limit AS l (queue, kind, item, count, expires_at)
VALUES (:queue, :kind, :item, 1, statement_timestamp() + :ttl_millis * interval '1 millisecond')
ON CONFLICT (queue, kind, item) DO UPDATE SET count = CASE
		WHEN l.expires_at <= statement_timestamp() THEN 1
		WHEN l.count >= 2147483647 THEN l.count ELSE l.count + 1 END,
	expires_at = excluded.expires_at
RETURNING count - 1
