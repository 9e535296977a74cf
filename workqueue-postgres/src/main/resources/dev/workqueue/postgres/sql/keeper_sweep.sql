-- keeper_sweep: deletes a batch of expired limiter rows (failure counts, buckets, a lapsed
--   reporter role); the keeper runs it until a batch comes back short.
-- Parameters:
--   :batch  the most rows to delete
-- Returns: the delete count
-- Races: the subquery locks what it picks (SKIP LOCKED), so a concurrent upsert of such a row
--   waits and then inserts afresh; rows a caller's open transaction holds are left for later.
DELETE FROM {table}_limit WHERE (queue, kind, item) IN (SELECT queue, kind, item FROM {table}_limit
	WHERE expires_at < statement_timestamp() LIMIT :batch FOR UPDATE SKIP LOCKED)
