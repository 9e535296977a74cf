-- paused: whether the queue is paused (see pause.lua), in one read. Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), nothing more
-- Output: 1 while paused, else 0
-- Invariants: writes nothing.
-- @include queue_keys

return redis.call('EXISTS', pausedKey)
