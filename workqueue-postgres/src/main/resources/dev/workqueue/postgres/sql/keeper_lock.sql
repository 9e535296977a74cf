-- keeper_lock: tries to take the session advisory lock that makes one handle per table its
--   keeper.
-- Twin: keeper_unlock.sql
-- Parameters:
--   :key  the lock's key (from the table's name)
-- Returns: one row: whether the lock was taken
-- Races: the server grants the lock to one session at a time; it never waits.
SELECT pg_try_advisory_lock(:key)
