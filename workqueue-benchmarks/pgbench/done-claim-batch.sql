-- The same worker step as done-claim-one.sql, 100 items per commit: the done of the
-- :batch items this client holds (by item and fencing token) and the claim of the next
-- :batch ready items, in one statement. pgbench keeps the held items and tokens per
-- client as two arrays (\gset), from one transaction to the next.
WITH c AS (SELECT statement_timestamp() AS now),
held AS (SELECT * FROM unnest(:items::text[], :tokens::bigint[]) AS h(item, token)),
gone AS (DELETE FROM wqbench_pgbench r USING held h
	WHERE r.queue = 'q' AND r.item = h.item AND r.token = h.token AND r.state = 1
	RETURNING r.queue, r.item, r.dirty_at, r.dirty_priority),
back AS (INSERT INTO wqbench_pgbench (queue, item, state, priority, ready_at, seq)
	SELECT g.queue, g.item, 0, g.dirty_priority, greatest(g.dirty_at, c.now), nextval('wqbench_pgbench_token')
	FROM gone g, c WHERE g.dirty_at IS NOT NULL
	RETURNING ready_at),
picked AS MATERIALIZED (SELECT r.queue, r.item FROM wqbench_pgbench r
	WHERE r.queue = 'q' AND r.state = 0 AND r.ready_at <= (SELECT now FROM c)
	ORDER BY r.ready_at, r.seq LIMIT :batch FOR UPDATE SKIP LOCKED),
claimed AS (UPDATE wqbench_pgbench r SET state = 1, token = nextval('wqbench_pgbench_token'),
		holder = 'pgbench-' || :client_id, lease_until = c.now + interval '30 seconds',
		dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
		dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END
	FROM picked, c WHERE r.queue = picked.queue AND r.item = picked.item
	RETURNING r.item, r.token)
SELECT coalesce(array_agg(k.item), '{}') AS items, coalesce(array_agg(k.token), '{}') AS tokens,
	(SELECT count(*) FROM gone) AS done, (SELECT count(*) FROM back) AS requeued,
	(SELECT min(w.ready_at) FROM wqbench_pgbench w
		WHERE w.queue = 'q' AND w.state = 0 AND w.ready_at > (SELECT now FROM c)) AS due
FROM claimed k
\gset
