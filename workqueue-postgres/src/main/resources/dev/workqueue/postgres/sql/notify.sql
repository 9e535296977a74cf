-- notify: tells the handles listening on a channel that items were queued (NoticeSender).
--   pg_notify is transactional: the notice is delivered at the commit.
-- Parameters:
--   :channel  the channel
--   :payload  the notice's payload (Notices#payload)
-- Returns: one row (pg_notify's void)
-- Races: none: it changes no row.
SELECT pg_notify(:channel, :payload)
