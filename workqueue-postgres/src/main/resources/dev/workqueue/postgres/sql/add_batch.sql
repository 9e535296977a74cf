-- add_batch: adds many items in one transaction of the handle's own, or of one call in the
--   caller's transaction, without trace contexts. They line up in the order given (seq), and lock
--   their rows in the order of their items. The
--   conflict clause is client-go's rule for an item with a row already: a queued row that waits
--   takes the earlier time and the higher priority; a ready one takes a higher priority from an
--   add without delay and lines up at the back of its new level; a processing one is marked
--   dirty with the earliest time and the highest priority. With :keeps_waits (FIFO), an add
--   that overtakes a wait keeps it in the dirty columns, and a delayed add of a ready item is a
--   wait of its own. A row the WHERE rejects is left alone: no row comes back. With a :channel,
--   a batch that queued items notifies the other instances in its own transaction (pg_notify is
--   delivered at the commit), once however many it queued, with the earliest due time among
--   them: a notice of its own would cost a commit of its own (0.39 per item end to end, 4
--   producers adding one item per call). The notice is stamped (:stamp) so that this handle,
--   which signals its own consumers after the commit, does not hear it; in a caller's
--   transaction it is not: the handle hears it at that commit.
-- Twin: add_batch_traced.sql (with each add's trace contexts; a file of its own: run with null
--   contexts it costs a batch 2.6 to 4.1% more, pgbench), add_batch_leasing.sql (which also
--   leases items to the handle's waiting consumers), add.sql (one add in the caller's
--   transaction, which this statement as a batch of one would slow by 4.4 to 4.8%)
-- Parameters:
--   :now          the given clock's time in µs since the epoch, or null for the database's
--                 clock
--   :queue        the queue's name
--   :items        the encoded items, distinct
--   :priorities   their priorities
--   :delays       their delays in µs
--   :keeps_waits  whether an add that overtakes a wait keeps it as a wait of its own (the FIFO
--                 order; ReadyOrder#keepsWaits)
--   :channel      the channel to notify, or null for none (a handle that does not listen; the run
--                 again of a batch whose commit found the NOTIFY queue full, AddGroup)
--   :stamp        the payload after its due time: the sender's stamp and the queue
--                 (Notices#stamp), or in the caller's transaction the queue alone, a notice its
--                 sender hears too (Notices#unstamped)
-- Returns: one row per add that changed its row: item, state, whether ready, ready_at (µs),
--   whether it was a new add, now (µs)
-- Races: the upsert's ON CONFLICT locks the row before its SET and WHERE read it, so two adds
--   of one item apply one after the other. Rows are locked in item order, so two batches never
--   deadlock on each other, in the handle's transactions or in callers'. A batch that notifies
--   takes PostgreSQL's NOTIFY lock (one for the whole server) at its commit, while it holds its
--   rows' locks
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})	,
	a AS MATERIALIZED (SELECT :queue::text AS queue, u.item, u.priority,
	c.now + u.delay * interval '1 microsecond' AS due, c.now, nextval('{table}_token') AS seq
FROM c, unnest(:items::text[], :priorities::integer[], :delays::bigint[]) WITH ORDINALITY AS u(item, priority, delay, ord)
ORDER BY u.ord),
	old AS (SELECT r.item, ((r.state = 0 AND r.ready_at <= a.now) OR (r.state = 1 AND r.dirty_at IS NOT NULL)) AS queued FROM {table} r JOIN a ON r.queue = a.queue AND r.item = a.item),
	up AS (INSERT INTO {table} AS r (queue, item, state, priority, ready_at, seq)
		SELECT a.queue, a.item, 0, a.priority, a.due, a.seq FROM a ORDER BY a.item
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
	n AS (SELECT pg_notify(:channel, min(CASE WHEN up.ready_at <= c.now THEN 0
			ELSE greatest(1, (extract(epoch FROM up.ready_at) * 1000000)::bigint / 1000) END)::text || :stamp)
		FROM up CROSS JOIN c WHERE :channel::text IS NOT NULL AND up.state = 0 HAVING count(*) > 0)
	SELECT up.item, up.state, up.ready_at <= c.now, (extract(epoch FROM up.ready_at) * 1000000)::bigint, NOT coalesce(old.queued, false), (extract(epoch FROM c.now) * 1000000)::bigint
	FROM up CROSS JOIN c LEFT JOIN old ON old.item = up.item LEFT JOIN n ON true
