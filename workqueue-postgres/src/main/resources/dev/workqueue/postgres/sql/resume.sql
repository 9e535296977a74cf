-- resume: resumes a queue: deletes its 'paused' row and, given a channel, notifies the handles
--   that listen on it (pg_notify is transactional: the notice goes at the commit, after which the
--   claims it wakes see the row gone).
-- Twin: pause.sql
-- Parameters:
--   :queue    the queue's name
--   :channel  the channel to notify, or null for none (a handle that does not listen)
--   :payload  the notice's payload (heard by every handle on the channel, this one too)
-- Returns: one row: how many rows it deleted (0 or 1), then the notice (void: null)
-- Races: the delete locks the row; a pause at once applies before or after it.
WITH gone AS (DELETE FROM {table}_limit WHERE queue = :queue AND kind = 'paused' AND item = '' RETURNING 1)
SELECT (SELECT count(*) FROM gone), CASE WHEN :channel::text IS NOT NULL THEN pg_notify(:channel, :payload) END
