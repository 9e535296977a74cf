-- add_notifying: as add.sql, and notifies :channel in the caller's transaction when the item is
--   queued (pg_notify is transactional: sent at the commit, dropped by a rollback).
-- Twin: add.sql (no notice), add_traced_notifying.sql (with trace contexts)
-- Parameters:
--   :now          the given clock's time in µs since the epoch, or null for the database's
--                 clock
--   :queue        the queue's name
--   :item         the encoded item
--   :priority     the add's priority
--   :delay        the delay in µs (0 for none)
--   :keeps_waits  whether an add that overtakes a wait keeps it as a wait of its own (the FIFO
--                 order; ReadyOrder#keepsWaits)
--   :channel      the channel to notify
--   :payload      the notice's payload
-- Returns: as add.sql, then the number of notices sent (counted so that the notice runs)
-- Races: the upsert's ON CONFLICT locks the row before its SET and WHERE read it, so two adds
--   of one item apply one after the other.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now),
a AS (SELECT :queue::text AS queue, :item::text AS item, :priority::integer AS priority,
	c.now + :delay::bigint * interval '1 microsecond' AS due, c.now FROM c),
old AS (SELECT ((r.state = 0 AND r.ready_at <= a.now) OR (r.state = 1 AND r.dirty_at IS NOT NULL)) AS queued FROM {table} r, a WHERE r.queue = a.queue AND r.item = a.item),
up AS (INSERT INTO {table} AS r (queue, item, state, priority, ready_at, seq)
	SELECT a.queue, a.item, 0, a.priority, a.due, nextval('{table}_token') FROM a
	ON CONFLICT (queue, item) DO UPDATE SET
	priority = CASE WHEN r.state = 0 AND (r.ready_at > (SELECT now FROM c) OR EXCLUDED.ready_at <= (SELECT now FROM c))
		THEN greatest(r.priority, EXCLUDED.priority) ELSE r.priority END,
	ready_at = CASE
		WHEN r.state = 1 THEN r.ready_at
		WHEN r.ready_at > (SELECT now FROM c) THEN least(r.ready_at, EXCLUDED.ready_at)
		WHEN EXCLUDED.ready_at <= (SELECT now FROM c) AND EXCLUDED.priority > r.priority THEN (SELECT now FROM c)
		ELSE r.ready_at END,
	seq = CASE
		WHEN r.state = 0 AND r.ready_at > (SELECT now FROM c) AND EXCLUDED.ready_at < r.ready_at THEN EXCLUDED.seq
		WHEN r.state = 0 AND r.ready_at <= (SELECT now FROM c) AND EXCLUDED.ready_at <= (SELECT now FROM c) AND EXCLUDED.priority > r.priority THEN EXCLUDED.seq
		ELSE r.seq END,
	dirty_at = CASE
		WHEN r.state = 1 THEN least(coalesce(r.dirty_at, EXCLUDED.ready_at), EXCLUDED.ready_at)
		WHEN :keeps_waits AND r.ready_at > (SELECT now FROM c) AND EXCLUDED.ready_at <= (SELECT now FROM c) THEN r.ready_at
		WHEN :keeps_waits AND r.ready_at <= (SELECT now FROM c) AND EXCLUDED.ready_at > (SELECT now FROM c) THEN
			CASE WHEN r.dirty_at IS NULL OR r.dirty_at <= (SELECT now FROM c) THEN EXCLUDED.ready_at ELSE least(r.dirty_at, EXCLUDED.ready_at) END
		ELSE r.dirty_at END,
	dirty_priority = CASE
		WHEN r.state = 1 THEN greatest(coalesce(r.dirty_priority, EXCLUDED.priority), EXCLUDED.priority)
		WHEN :keeps_waits AND ((r.ready_at > (SELECT now FROM c) AND EXCLUDED.ready_at <= (SELECT now FROM c))
				OR (r.ready_at <= (SELECT now FROM c) AND EXCLUDED.ready_at > (SELECT now FROM c)))
			THEN greatest(coalesce(r.dirty_priority, EXCLUDED.priority), EXCLUDED.priority)
		ELSE r.dirty_priority END
WHERE (r.state = 1 AND (r.dirty_at IS NULL OR EXCLUDED.ready_at < r.dirty_at OR EXCLUDED.priority > r.dirty_priority))
	OR (r.state = 0 AND r.ready_at > (SELECT now FROM c) AND (EXCLUDED.ready_at < r.ready_at OR EXCLUDED.priority > r.priority))
	OR (r.state = 0 AND r.ready_at <= (SELECT now FROM c) AND EXCLUDED.ready_at <= (SELECT now FROM c) AND EXCLUDED.priority > r.priority)
	OR (:keeps_waits AND r.state = 0 AND r.ready_at <= (SELECT now FROM c) AND EXCLUDED.ready_at > (SELECT now FROM c)
		AND (r.dirty_at IS NULL OR r.dirty_at <= (SELECT now FROM c) OR EXCLUDED.ready_at < r.dirty_at))
	RETURNING r.item, r.state, r.ready_at),
n AS (SELECT pg_notify(:channel, :payload) FROM up WHERE up.state = 0)
SELECT up.state, up.ready_at <= a.now, (extract(epoch FROM up.ready_at) * 1000000)::bigint, NOT coalesce((SELECT queued FROM old), false), (extract(epoch FROM a.now) * 1000000)::bigint, (SELECT count(*) FROM n)
FROM up, a
