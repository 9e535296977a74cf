-- keeper_autovacuum: asks whether autovacuum runs for a table: the server's autovacuum and
--   track_counts settings, and the table's autovacuum_enabled (true for a missing table, whose
--   vacuum then fails and says so).
-- Parameters:
--   :relation  the table's name
-- Returns: one row: autovacuum, track_counts, the table's autovacuum_enabled
-- Races: reads only.
SELECT current_setting('autovacuum')::boolean, current_setting('track_counts')::boolean,
	coalesce((SELECT option_value::boolean FROM pg_class c, pg_options_to_table(c.reloptions)
		WHERE c.oid = to_regclass(:relation) AND option_name = 'autovacuum_enabled'), true)
