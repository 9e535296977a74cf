-- reporter: the id of the handle that holds the reporter role, so that a handle that
-- joins the queue learns from its mark which kind of clock the live handles use
-- (ClockKind). Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua)
-- Output: the id, or nil when no handle holds the role
-- Invariants: writes nothing.
-- @include queue_keys

return redis.call('GET', reporterKey)
