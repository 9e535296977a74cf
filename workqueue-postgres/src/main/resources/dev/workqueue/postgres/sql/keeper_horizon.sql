-- keeper_horizon: finds the session whose snapshot holds back the cleanup horizon of this
--   database: the oldest backend_xmin among the sessions whose transaction, or query, began at
--   least :held_millis ago. Another role's sessions show their backend_xmin only to a superuser
--   or a member of pg_read_all_stats.
-- Parameters:
--   :held_millis  how long a snapshot may be held before it counts, in ms
-- Returns: one row or none: pid, application name, user, how long it has held its snapshot
--   (ms), the age of its backend_xmin
-- Races: reads only (a view of the server's sessions).
SELECT pid, coalesce(application_name, ''), coalesce(usename::text, ''),
	(extract(epoch FROM clock_timestamp() - coalesce(xact_start, query_start)) * 1000)::bigint, age(backend_xmin)
FROM pg_stat_activity WHERE datname = current_database() AND backend_xmin IS NOT NULL
	AND pid <> pg_backend_pid()
	AND coalesce(xact_start, query_start) < clock_timestamp() - :held_millis * interval '1 millisecond'
ORDER BY age(backend_xmin) DESC LIMIT 1
