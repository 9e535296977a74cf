-- add_traced: as add.sql, with the add's trace contexts. The trace record is the parent (or '')
--   then a line per link; the add's contexts become the parent when the add is the item's first
--   effective one since its last hand-out and the row has none, links otherwise; at most
--   ItemTrace.MAX_LINKS (8) links are kept ([1:9]), and a row with room takes the contexts even
--   when the add changes nothing else. With a :channel it notifies it when the item is queued
--   and its place changed (not for a write of the contexts alone).
-- Twin: add.sql (the same add without contexts, which pays nothing for tracing: this statement
--   with a null :trace costs 4.7 to 4.9% more per add, pgbench, prepared, side by side)
-- Parameters:
--   :now          the given clock's time in µs since the epoch, or null for the database's
--                 clock
--   :queue        the queue's name
--   :item         the encoded item
--   :priority     the add's priority
--   :delay        the delay in µs (0 for none)
--   :trace        the add's trace contexts, one per line (see ItemTrace#fromRecord)
--   :keeps_waits  whether an add that overtakes a wait keeps it as a wait of its own (the FIFO
--                 order; ReadyOrder#keepsWaits)
--   :channel      the channel to notify, or null for none (a handle that does not listen)
--   :payload      the notice's payload
-- Returns: as add.sql without the notice, then whether the add changed the item's place (not
--   only its contexts; a new add is one that moved it), then the notice (void: null)
-- Races: the upsert's ON CONFLICT locks the row before its SET and WHERE read it, so two adds
--   of one item apply one after the other. old reads the row before: a row changed meanwhile
--   differs, at worst a wake-up too many
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now),
a AS (SELECT :queue::text AS queue, :item::text AS item, :priority::integer AS priority,
	c.now + :delay::bigint * interval '1 microsecond' AS due, c.now, :trace::text AS trace FROM c),
old AS (SELECT ((r.state = 0 AND r.ready_at <= a.now) OR (r.state = 1 AND r.dirty_at IS NOT NULL)) AS queued, (r.state, r.priority, r.ready_at, r.seq, r.dirty_at, r.dirty_priority) AS place FROM a LEFT JOIN {table} r ON r.queue = a.queue AND r.item = a.item),
up AS (INSERT INTO {table} AS r (queue, item, state, priority, ready_at, seq, trace)
	SELECT a.queue, a.item, 0, a.priority, a.due, nextval('{table}_token'), a.trace FROM a
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
		ELSE r.dirty_priority END,
	trace = CASE WHEN EXCLUDED.trace IS NULL THEN r.trace
	ELSE array_to_string((string_to_array(
		CASE WHEN r.trace IS NULL AND r.state = 1 AND r.dirty_at IS NULL THEN EXCLUDED.trace
			ELSE coalesce(r.trace, '') || E'\n' || ltrim(EXCLUDED.trace, E'\n') END,
		E'\n'))[1:9], E'\n') END
WHERE ((r.state = 1 AND (r.dirty_at IS NULL OR EXCLUDED.ready_at < r.dirty_at OR EXCLUDED.priority > r.dirty_priority))
	OR (r.state = 0 AND r.ready_at > (SELECT now FROM c) AND (EXCLUDED.ready_at < r.ready_at OR EXCLUDED.priority > r.priority))
	OR (r.state = 0 AND r.ready_at <= (SELECT now FROM c) AND EXCLUDED.ready_at <= (SELECT now FROM c) AND EXCLUDED.priority > r.priority)
	OR (:keeps_waits AND r.state = 0 AND r.ready_at <= (SELECT now FROM c) AND EXCLUDED.ready_at > (SELECT now FROM c)
		AND (r.dirty_at IS NULL OR r.dirty_at <= (SELECT now FROM c) OR EXCLUDED.ready_at < r.dirty_at)))
	OR (EXCLUDED.trace IS NOT NULL AND (r.trace IS NULL
		OR length(r.trace) - length(replace(r.trace, E'\n', '')) < 8))
	RETURNING r.item, r.state, r.ready_at, (r.state, r.priority, r.ready_at, r.seq, r.dirty_at, r.dirty_priority) AS place)
SELECT up.state, up.ready_at <= a.now, (extract(epoch FROM up.ready_at) * 1000000)::bigint, (old.place IS DISTINCT FROM up.place) AND NOT coalesce(old.queued, false), (extract(epoch FROM a.now) * 1000000)::bigint, old.place IS DISTINCT FROM up.place,
	CASE WHEN up.state = 0 AND old.place IS DISTINCT FROM up.place AND :channel::text IS NOT NULL
		THEN pg_notify(:channel, :payload) END
FROM up, a, old
