-- The worker step of done-claim-one.sql with 100 items per commit: the done of the :batch
-- items this client holds (by item and fencing token, as the engine's done, for a set) and
-- the claim of the next :batch ready items (the engine's claim with a limit of :batch), in
-- one statement. pgbench keeps the held items and tokens per client as two arrays (\gset),
-- from one transaction to the next.
WITH c AS (SELECT coalesce(to_timestamp(NULL::float8 / 1000000), statement_timestamp()) AS now),
held AS (SELECT * FROM unnest(:items::text[], :tokens::bigint[]) AS h(item, token)),
gone AS (DELETE FROM wqbench_pgbench r USING held h
	WHERE r.queue = 'q' AND r.item = h.item AND r.token = h.token AND r.state = 1
	RETURNING r.queue, r.item, r.dirty_at, r.dirty_priority),
back AS (INSERT INTO wqbench_pgbench (queue, item, state, priority, ready_at, seq)
	SELECT g.queue, g.item, 0, g.dirty_priority, greatest(g.dirty_at, c.now), nextval('wqbench_pgbench_token')
	FROM gone g, c WHERE g.dirty_at IS NOT NULL
	RETURNING ready_at),
picked AS MATERIALIZED (SELECT r.queue, r.item, false AS starving FROM wqbench_pgbench r
	WHERE r.queue = 'q' AND r.state = 0 AND r.ready_at <= (SELECT now FROM c)
	ORDER BY r.ready_at, r.seq LIMIT :batch FOR UPDATE SKIP LOCKED),
claimed AS (UPDATE wqbench_pgbench r SET state = 1, token = nextval('wqbench_pgbench_token'),
		holder = 'pgbench-' || :client_id, lease_until = c.now + 30000000::bigint * interval '1 microsecond',
		dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
		dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END
	FROM picked, c WHERE r.queue = picked.queue AND r.item = picked.item
	RETURNING r.item, r.priority, r.token, r.ready_at, r.seq, picked.starving)
SELECT coalesce(array_agg(k.item ORDER BY k.ready_at, k.seq) FILTER (WHERE k.item IS NOT NULL), '{}') AS items,
	coalesce(array_agg(k.token ORDER BY k.ready_at, k.seq) FILTER (WHERE k.token IS NOT NULL), '{}') AS tokens,
	(SELECT count(*) FROM gone) AS done, (SELECT count(*) FROM back) AS requeued,
	max((extract(epoch FROM d.due - c.now) * 1000000)::bigint) AS due_in
FROM c CROSS JOIN (SELECT min(w.ready_at) AS due FROM wqbench_pgbench w
	WHERE w.queue = 'q' AND w.state = 0 AND w.ready_at > (SELECT now FROM c)) d
LEFT JOIN claimed k ON true
\gset
