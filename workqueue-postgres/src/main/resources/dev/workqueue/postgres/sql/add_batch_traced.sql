-- add_batch_traced: as add_batch.sql, with each add's trace contexts. The trace record is the
--   parent (or '') then a line per link; the add's contexts become the parent when the add is
--   the item's first effective one since its last hand-out and the row has none, links
--   otherwise; at most ItemTrace.MAX_LINKS (8) links are kept ([1:9]), and a row with room
--   takes the contexts even when the add changes nothing else.
-- Twin: add_batch.sql (the same adds without contexts, which pay nothing for tracing: this
--   statement with null :traces costs a batch of one 4.1% more, of 16 adds 2.6%, pgbench)
-- Parameters:
--   :now          the given clock's time in µs since the epoch, or null for the database's
--                 clock
--   :queue        the queue's name
--   :items        the encoded items, distinct
--   :priorities   their priorities
--   :delays       their delays in µs
--   :traces       their trace contexts (null for an item without any)
--   :keeps_waits  whether an add that overtakes a wait keeps it as a wait of its own (the FIFO
--                 order; ReadyOrder#keepsWaits)
--   :channel      the channel to notify, or null for none; the notice as in add_batch.sql,
--                 for the adds that changed their item's place
--   :stamp        the payload after its due time (Notices#stamp, or Notices#unstamped in the
--                 caller's transaction)
-- Returns: as add_batch.sql, then whether each add changed the item's place
-- Races: the upsert's ON CONFLICT locks the row before its SET and WHERE read it, so two adds
--   of one item apply one after the other. Rows are locked in item order, as add_batch.sql's.
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})	,
	a AS MATERIALIZED (SELECT :queue::text AS queue, u.item, u.priority,
	c.now + u.delay * interval '1 microsecond' AS due, c.now, nextval('{table}_token') AS seq, u.trace
FROM c, unnest(:items::text[], :priorities::integer[], :delays::bigint[], :traces::text[]) WITH ORDINALITY AS u(item, priority, delay, trace, ord)
ORDER BY u.ord),
	old AS (SELECT r.item, ((r.state = 0 AND r.ready_at <= a.now) OR (r.state = 1 AND r.dirty_at IS NOT NULL)) AS queued, (r.state, r.priority, r.ready_at, r.seq, r.dirty_at, r.dirty_priority) AS place FROM {table} r JOIN a ON r.queue = a.queue AND r.item = a.item),
	up AS (INSERT INTO {table} AS r (queue, item, state, priority, ready_at, seq, trace)
		SELECT a.queue, a.item, 0, a.priority, a.due, a.seq, a.trace FROM a ORDER BY a.item
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
		RETURNING r.item, r.state, r.ready_at, (r.state, r.priority, r.ready_at, r.seq, r.dirty_at, r.dirty_priority) AS place),
	n AS (SELECT pg_notify(:channel, min(CASE WHEN up.ready_at <= c.now THEN 0
			ELSE greatest(1, (extract(epoch FROM up.ready_at) * 1000000)::bigint / 1000) END)::text || :stamp)
		FROM up CROSS JOIN c LEFT JOIN old ON old.item = up.item
		WHERE :channel::text IS NOT NULL AND up.state = 0 AND old.place IS DISTINCT FROM up.place HAVING count(*) > 0)
	SELECT up.item, up.state, up.ready_at <= c.now, (extract(epoch FROM up.ready_at) * 1000000)::bigint, (old.place IS DISTINCT FROM up.place) AND NOT coalesce(old.queued, false), (extract(epoch FROM c.now) * 1000000)::bigint, old.place IS DISTINCT FROM up.place
	FROM up CROSS JOIN c LEFT JOIN old ON old.item = up.item LEFT JOIN n ON true
