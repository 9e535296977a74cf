-- resign: gives up the reporter role at shutdown, if held, so that another handle takes
-- it at its next tick rather than when it lapses. Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 this handle's id
-- Output: 1 if the role was given up, else 0
-- Invariants: deletes the role only for the handle that holds it.
-- @include queue_keys

local handle = ARGV[3]

if redis.call('GET', reporterKey) == handle then
  return redis.call('DEL', reporterKey)
end
return 0
