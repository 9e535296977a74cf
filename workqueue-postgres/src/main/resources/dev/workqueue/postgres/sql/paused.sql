-- paused: reads whether a queue is paused (its 'paused' row in {table}_limit).
-- Parameters:
--   :queue  the queue's name
-- Returns: one row: whether it is paused
-- Races: reads only (one snapshot).
SELECT EXISTS (SELECT FROM {table}_limit WHERE queue = :queue AND kind = 'paused' AND item = '')
