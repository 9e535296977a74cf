-- resign: gives the reporter role up.
-- Twin: report.sql
-- Parameters:
--   :queue   the queue's name
--   :holder  the handle's holder id
-- Returns: nothing
-- Races: deletes only this holder's row.
DELETE FROM {table}_limit WHERE queue = :queue AND kind = 'gauges' AND item = '' AND holder = :holder
