-- find: reads one item in every state it is in, by primary keys: its row in {table} (processing,
--   or queued: ready or waiting), with its lease and the failures max-retries counts for it (as
--   items_processing.sql), then its given-up record unless past its retention.
-- Parameters:
--   :now        the given clock's time in µs since the epoch, or null for the database's clock
--   :queue      the queue's name
--   :item       the encoded item
--   :retention  how long a given-up record is kept, in µs
-- Returns: up to two rows, processing, ready, waiting, given up in that order: the state (1
--   processing, 2 ready, 3 waiting, 4 given up), priority (0 given up), when (µs since the
--   epoch: it became ready, falls due or was given up), holder (processing, given up), lease
--   left (µs, processing), failures counted (0 for none) or the record's attempts, the reason
--   (given up)
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now)
SELECT CASE WHEN r.state = 1 THEN 1 WHEN r.ready_at <= (SELECT now FROM c) THEN 2 ELSE 3 END AS rank, r.priority,
	(extract(epoch FROM r.ready_at) * 1000000)::bigint, CASE WHEN r.state = 1 THEN coalesce(l.holder, r.holder) END,
	(extract(epoch FROM coalesce(l.lease_until, r.lease_until) - (SELECT now FROM c)) * 1000000)::bigint,
	coalesce(f.count, 0), NULL
FROM {table} r
LEFT JOIN {table}_lease l ON l.token = r.token AND r.state = 1
LEFT JOIN {table}_limit f ON f.queue = r.queue AND f.kind = 'failures:attempts' AND f.item = r.item
	AND f.expires_at > statement_timestamp()
WHERE r.queue = :queue AND r.item = :item
UNION ALL
SELECT 4, 0, (extract(epoch FROM g.given_up_at) * 1000000)::bigint, g.holder, NULL, g.attempts, g.reason
FROM {table}_given_up g
WHERE g.queue = :queue AND g.item = :item
	AND g.given_up_at >= (SELECT now FROM c) - :retention::bigint * interval '1 microsecond'
ORDER BY rank
