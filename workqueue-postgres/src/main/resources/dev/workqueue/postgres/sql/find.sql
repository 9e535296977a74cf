-- find: reads one item in every state it is in, by primary keys: its row in {table} (found:
--   processing, or queued: ready or waiting) with its lease and the failures max-retries counts
--   for it (as items_processing.sql); a processing or ready row whose dirty mark is a wait not
--   over yet (an addAfter while it was handed out; a wait an add kept, ReadyOrder#keepsWaits)
--   also waits, from dirty_at at dirty_priority (as items_waiting.sql lists them), while a
--   processing row added again to be ready at once shows only as processing, as in memory and on
--   Redis (it is not ready before its done); then its given-up record unless past its retention.
-- Parameters:
--   :now        the given clock's time in µs since the epoch, or null for the database's clock
--   :queue      the queue's name
--   :item       the encoded item
--   :retention  how long a given-up record is kept, in µs
-- Returns: up to three rows, processing, ready, waiting, given up in that order: the state (1
--   processing, 2 ready, 3 waiting, 4 given up), priority (0 given up), when (µs since the
--   epoch: it was handed out, as items_processing.sql; it became ready, falls due or was given
--   up), holder (processing, given up), lease left (µs, processing: 0 once run out and not swept
--   yet), failures counted (0 for none) or the record's attempts, the reason (given up)
-- Races: reads only (one snapshot).
-- Time: c.now is :now, or the statement's start.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now),
found AS (SELECT r.state, r.priority, r.ready_at, coalesce(l.leased_at, r.ready_at) AS at, r.dirty_at, r.dirty_priority,
		coalesce(l.holder, r.holder) AS holder,
		coalesce(l.lease_until, r.lease_until) AS lease_until, coalesce(f.count, 0) AS failures
	FROM {table} r
	LEFT JOIN {table}_lease l ON l.token = r.token AND r.state = 1
	LEFT JOIN {table}_limit f ON f.queue = r.queue AND f.kind = 'failures:attempts' AND f.item = r.item
		AND f.expires_at > statement_timestamp()
	WHERE r.queue = :queue AND r.item = :item)
SELECT CASE WHEN w.state = 1 THEN 1 WHEN w.ready_at <= (SELECT now FROM c) THEN 2 ELSE 3 END AS rank, w.priority,
	(extract(epoch FROM w.at) * 1000000)::bigint, CASE WHEN w.state = 1 THEN w.holder END,
	CASE WHEN w.state = 1 THEN greatest(0, (extract(epoch FROM w.lease_until - (SELECT now FROM c)) * 1000000)::bigint) END,
	w.failures, NULL
FROM found w
UNION ALL
SELECT 3, w.dirty_priority, (extract(epoch FROM w.dirty_at) * 1000000)::bigint, NULL, NULL, w.failures, NULL
FROM found w WHERE w.dirty_at > (SELECT now FROM c) AND (w.state = 1 OR w.ready_at <= (SELECT now FROM c))
UNION ALL
SELECT 4, 0, (extract(epoch FROM g.given_up_at) * 1000000)::bigint, g.holder, NULL, g.attempts, g.reason
FROM {table}_given_up g
WHERE g.queue = :queue AND g.item = :item
	AND g.given_up_at >= (SELECT now FROM c) - :retention::bigint * interval '1 microsecond'
ORDER BY rank
