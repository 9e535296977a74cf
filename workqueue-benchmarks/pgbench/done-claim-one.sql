-- One worker step of a queue on PostgreSQL, one item per commit: the statement
-- workqueue-postgres's doneAndPoll runs (QueueSql.doneAndClaim, FIFO order, database clock),
-- for the table wqbench_pgbench and the queue 'q': the done of the item this client holds (a
-- delete by item and fencing token that queues the item again if it was added while held)
-- and the claim of the next ready item (FOR UPDATE SKIP LOCKED, fenced by MATERIALIZED), with
-- the next due time of the waiting items that the claim also answers. The engine answers one
-- row per item claimed; for pgbench's \gset the last SELECT folds them into one row. pgbench
-- keeps :item and :token per client from one transaction to the next.
WITH c AS (SELECT coalesce(to_timestamp(NULL::float8 / 1000000), statement_timestamp()) AS now),
gone AS (DELETE FROM wqbench_pgbench WHERE queue = 'q' AND item = :item AND token = :token AND state = 1
	RETURNING queue, item, dirty_at, dirty_priority),
back AS (INSERT INTO wqbench_pgbench (queue, item, state, priority, ready_at, seq)
	SELECT g.queue, g.item, 0, g.dirty_priority, greatest(g.dirty_at, c.now), nextval('wqbench_pgbench_token')
	FROM gone g, c WHERE g.dirty_at IS NOT NULL
	RETURNING ready_at),
picked AS MATERIALIZED (SELECT r.queue, r.item, false AS starving FROM wqbench_pgbench r
	WHERE r.queue = 'q' AND r.state = 0 AND r.ready_at <= (SELECT now FROM c)
	ORDER BY r.ready_at, r.seq LIMIT 1 FOR UPDATE SKIP LOCKED),
claimed AS (UPDATE wqbench_pgbench r SET state = 1, token = nextval('wqbench_pgbench_token'),
		holder = 'pgbench-' || :client_id, lease_until = c.now + 30000000::bigint * interval '1 microsecond',
		dirty_at = CASE WHEN r.dirty_at > c.now THEN r.dirty_at END,
		dirty_priority = CASE WHEN r.dirty_at > c.now THEN r.dirty_priority END
	FROM picked, c WHERE r.queue = picked.queue AND r.item = picked.item
	RETURNING r.item, r.priority, r.token, r.ready_at, r.seq, picked.starving)
SELECT coalesce(min(k.item), 'none') AS item, coalesce(min(k.token), 0) AS token,
	(SELECT count(*) FROM gone) AS done, (SELECT count(*) FROM back) AS requeued,
	max((extract(epoch FROM d.due - c.now) * 1000000)::bigint) AS due_in
FROM c CROSS JOIN (SELECT min(w.ready_at) AS due FROM wqbench_pgbench w
	WHERE w.queue = 'q' AND w.state = 0 AND w.ready_at > (SELECT now FROM c)) d
LEFT JOIN claimed k ON true
\gset
