-- add_batch_leasing: adds many items in one transaction of the handle's own, as add_batch.sql
--   does (the same conflict clause, the same notice), and leases up to :lease_limit of them to
--   the adding handle for its consumers that wait: an item lines up leased (state 1, a new
--   token, its lease row written, as a claim leaves it) instead of queued when it is new, ready
--   now, among the first :lease_limit such items of the batch in the queue's order, and nothing
--   else of the queue is ready (as this statement's snapshot sees it: an older item is handed
--   out first, client-go's FIFO) nor can become ready in this statement (no item of the batch
--   has a queued row: its add may make it ready, and it lined up before the new ones), nor is
--   the queue paused. Such an item
--   costs no notice (only queued items are announced), no claim and no other instance's
--   wake-up: the handle hands it to a consumer of its own (AddLeases).
-- Twin: add_batch.sql (without leases, for a batch with no consumer reserved: folded in with a
--   :lease_limit of 0 the leases cost a batch 2.6 to 5.2% more, pgbench)
-- Parameters:
--   :now          the given clock's time in µs since the epoch, or null for the database's
--                 clock
--   :queue        the queue's name
--   :items        the encoded items, distinct
--   :priorities   their priorities
--   :delays       their delays in µs
--   :lease_limit  the most new ready items to lease to this handle, at least 1: its consumers
--                 reserved for the batch (ItemTaker#reserveForAdds) that no earlier run of it
--                 leased an item for
--   :holder       the handle's holder id, for those leases
--   :keeps_waits  whether an add that overtakes a wait keeps it as a wait of its own (the FIFO
--                 order; ReadyOrder#keepsWaits)
--   :lease        the length of those leases in µs
--   :channel      the channel to notify, or null for none (a handle that does not listen; the run
--                 again of a batch whose commit found the NOTIFY queue full, AddGroup)
--   :stamp        the payload after its due time: the sender's stamp and the queue
--                 (Notices#stamp)
-- Returns: one row per add that changed its row: item, state, whether ready, ready_at (µs),
--   whether it was a new add, now (µs), and the token of the lease this statement made for
--   it (null if none)
-- Races: the upsert's ON CONFLICT locks the row before its SET and WHERE read it, so two adds
--   of one item apply one after the other. A row another transaction inserted meanwhile takes
--   the conflict clause, which leaves its state: it is leased only if this insert made it,
--   told by both its state (1: a conflict may give a queued row this statement's seq, never
--   state 1) and its seq (this statement's: a processing row keeps its own). Rows are locked in
--   item order, so two batches never deadlock on each other. A batch that notifies takes
--   PostgreSQL's NOTIFY lock (one for the whole server) at its commit, while it holds its rows'
--   locks
-- Time: c.now is :now, or the statement's start; lease ends count from after any wait
--   (clock_timestamp).
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now{async_commit})	,
	a AS MATERIALIZED (SELECT :queue::text AS queue, u.item, u.priority,
	c.now + u.delay * interval '1 microsecond' AS due, c.now, nextval('{table}_token') AS seq
FROM c, unnest(:items::text[], :priorities::integer[], :delays::bigint[]) WITH ORDINALITY AS u(item, priority, delay, ord)
ORDER BY u.ord),
	old AS (SELECT r.item, r.state, ((r.state = 0 AND r.ready_at <= a.now) OR (r.state = 1 AND r.dirty_at IS NOT NULL)) AS queued FROM {table} r JOIN a ON r.queue = a.queue AND r.item = a.item),
	l AS (SELECT x.item, x.seq FROM (SELECT a.item, a.seq, a.priority, a.due AS ready_at FROM a
		WHERE a.due <= a.now AND NOT EXISTS (SELECT FROM old WHERE old.item = a.item)
			AND NOT EXISTS (SELECT FROM old WHERE old.state = 0)
			AND NOT EXISTS (SELECT FROM {table} w WHERE w.queue = :queue AND w.state = 0 AND w.ready_at <= (SELECT now FROM c))
			AND NOT EXISTS (SELECT FROM {table}_limit p WHERE p.queue = :queue AND p.kind = 'paused' AND p.item = '')) x
		ORDER BY {order:x} LIMIT :lease_limit),
	up AS (INSERT INTO {table} AS r (queue, item, state, priority, ready_at, seq, token, holder)
		SELECT a.queue, a.item, CASE WHEN l.item IS NULL THEN 0 ELSE 1 END, a.priority, a.due, a.seq,
			CASE WHEN l.item IS NOT NULL THEN nextval('{table}_token') END, CASE WHEN l.item IS NOT NULL THEN :holder::text END
		FROM a LEFT JOIN l ON l.item = a.item ORDER BY a.item
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
		RETURNING r.item, r.state, r.ready_at, r.seq, r.token),
	leased AS (INSERT INTO {table}_lease (token, queue, item, holder, leased_at, lease_until)
		SELECT up.token, :queue, up.item, :holder, h.at, h.at + :lease::bigint * interval '1 microsecond'
		FROM up JOIN l ON l.item = up.item AND l.seq = up.seq CROSS JOIN c,
			LATERAL (SELECT c.now + (clock_timestamp() - statement_timestamp()) AS at) h
		WHERE up.state = 1
		RETURNING token),
	n AS (SELECT pg_notify(:channel, min(CASE WHEN up.ready_at <= c.now THEN 0
			ELSE greatest(1, (extract(epoch FROM up.ready_at) * 1000000)::bigint / 1000) END)::text || :stamp)
		FROM up CROSS JOIN c WHERE :channel::text IS NOT NULL AND up.state = 0 HAVING count(*) > 0)
	SELECT up.item, up.state, up.ready_at <= c.now, (extract(epoch FROM up.ready_at) * 1000000)::bigint, NOT coalesce(old.queued, false), (extract(epoch FROM c.now) * 1000000)::bigint, k.token
	FROM up CROSS JOIN c LEFT JOIN old ON old.item = up.item LEFT JOIN leased k ON k.token = up.token LEFT JOIN n ON true
