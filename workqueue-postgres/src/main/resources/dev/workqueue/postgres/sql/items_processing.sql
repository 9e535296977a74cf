-- items_processing: lists a page of the items being processed in the order they were handed out
--   (by token: each claim draws its tokens from {table}_token), each with its holder, lease and
--   hand-out time from its {table}_lease row (an earlier release's row: from the item row), and
--   the failures max-retries counts for it (as items_ready.sql).
-- Parameters:
--   :now     the given clock's time in µs since the epoch, or null for the database's clock
--   :queue   the queue's name
--   :limit   the most rows
--   :offset  how many to skip
-- Returns: one row per item, oldest hand-out first: item, priority, holder, how long its lease
--   has left (µs, 0 once run out and not swept yet), when it was handed out (µs since the epoch:
--   the claim's leased_at; when it became ready before that for a lease written by a release
--   before leased_at), failures counted (0 for none)
-- Races: reads only (one snapshot): a lease renewed meanwhile reads as before. A renewal leaves
--   leased_at.
-- Time: c.now is :now, or the statement's start.
-- Plan: an index scan of {name}_leases (partial on state 1: only the queue's processing rows,
--   whose number the consumers bound), joined to the lease and limit rows (hashed while those
--   tables are small, else probes of their primary keys), sorted by token and cut by the limit.
--   EXPLAIN ANALYZE, the first page of 100 on a table of 1,000,000 waiting and 100 processing
--   items: 0.76 to 0.88 ms.
WITH c AS (SELECT coalesce(to_timestamp(:now::float8 / 1000000), statement_timestamp()) AS now)
SELECT r.item, r.priority, coalesce(l.holder, r.holder),
	greatest(0, (extract(epoch FROM coalesce(l.lease_until, r.lease_until) - (SELECT now FROM c)) * 1000000)::bigint),
	(extract(epoch FROM coalesce(l.leased_at, r.ready_at)) * 1000000)::bigint, coalesce(f.count, 0)
FROM {table} r
LEFT JOIN {table}_lease l ON l.token = r.token
LEFT JOIN {table}_limit f ON f.queue = r.queue AND f.kind = 'failures:attempts' AND f.item = r.item
	AND f.expires_at > statement_timestamp()
WHERE r.queue = :queue AND r.state = 1
ORDER BY r.token LIMIT :limit OFFSET :offset
