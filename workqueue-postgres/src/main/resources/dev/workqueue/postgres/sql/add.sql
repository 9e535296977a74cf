-- add: adds one item in the caller's transaction, without trace contexts, and with a :channel
--   notifies it in that transaction when the item is queued (pg_notify is transactional: sent at
--   the commit, dropped by a rollback). The conflict clause is client-go's rule for an item with
--   a row already: a queued row that waits takes the earlier time and the higher priority; a
--   ready one takes a higher priority from an add without delay and lines up at the back of its
--   new level; a processing one is marked dirty with the earliest time and the highest priority.
--   With :keeps_waits (FIFO), an add that overtakes a wait keeps it in the dirty columns, and a
--   delayed add of a ready item is a wait of its own. A row the WHERE rejects is left alone: no
--   row comes back. The notice is a column of the answer, evaluated only for the row that comes
--   back: as a CTE of its own it cost an add without a channel 2 to 4% (pgbench), as a column
--   0.5 to 1.8%.
-- Twin: add_traced.sql (with the add's trace contexts; a file of its own: run with a null
--   context it costs an add 4.7 to 4.9% more, pgbench), add_batch.sql (many adds in a
--   transaction of the handle's own, or of one call in the caller's, which locks their rows in
--   item order; one add as a batch of one costs 4.4 to 4.8% more)
-- Parameters:
--   :now          the given clock's time in µs since the epoch, or null for the database's
--                 clock
--   :queue        the queue's name
--   :item         the encoded item
--   :priority     the add's priority
--   :delay        the delay in µs (0 for none)
--   :keeps_waits  whether an add that overtakes a wait keeps it as a wait of its own (the FIFO
--                 order; ReadyOrder#keepsWaits)
--   :channel      the channel to notify, or null for none (a handle that does not listen)
--   :payload      the notice's payload
-- Returns: one row if the add changed the row, none if not: state, whether ready, ready_at (µs
--   since the epoch), whether it was a new add of the item (not queued before), now (µs), then
--   the notice (void: null)
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
	RETURNING r.item, r.state, r.ready_at)
SELECT up.state, up.ready_at <= a.now, (extract(epoch FROM up.ready_at) * 1000000)::bigint, NOT coalesce((SELECT queued FROM old), false), (extract(epoch FROM a.now) * 1000000)::bigint,
	CASE WHEN up.state = 0 AND :channel::text IS NOT NULL THEN pg_notify(:channel, :payload) END
FROM up, a
