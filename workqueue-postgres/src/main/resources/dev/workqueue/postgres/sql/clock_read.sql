-- clock_read: reads the database's time, to anchor a given clock on it (ClockAnchor).
-- Parameters: none
-- Returns: one row: the statement's time, in µs since the epoch
-- Races: reads only.
SELECT (extract(epoch FROM statement_timestamp()) * 1000000)::bigint
