-- keeper_unlock: gives the keeper's session advisory lock back (a session lock on a pooled
--   connection would outlive the moment).
-- Twin: keeper_lock.sql
-- Parameters:
--   :key  the lock's key
-- Returns: one row: whether the lock was held
-- Races: none.
SELECT pg_advisory_unlock(:key)
