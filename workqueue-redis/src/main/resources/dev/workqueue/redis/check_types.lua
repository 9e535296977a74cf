-- check_types: run once when a handle starts. Looks, without writing, for a key of the
-- queue that holds another type than the queue keeps there, then publishes a 'p' notice
-- (which the instances ignore) so that a user without the right to publish to the
-- queue's channel fails here, at start-up, rather than silently losing every notice.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 the layout of the ready items, 'list' or 'priority'
--   (absent: not checked)
-- Output: {key, its type, the type the queue keeps there}, or {} when all fit, or
-- {key, its type, 'none', the other layout} when the key belongs to a queue of the same
-- name with the other layout (a plain queue's ready list, a priority queue's ready set)
-- Invariants: writes no key; the notice is its last command.
-- @include queue_keys
-- @include key_type

local layout = ARGV[3]

-- Every key the queue passes, in the order QueueKeys.all() passes them.
for _, key in ipairs(KEYS) do
  local actual = redis.call('TYPE', key)['ok']
  if actual ~= 'none' and actual ~= key_type(key) then
    return {key, actual, key_type(key)}
  end
end
local other = {list = {readyKey, 'priority'}, priority = {queueKey, 'list'}}
local foreign = layout and other[layout]
if foreign and redis.call('EXISTS', foreign[1]) == 1 then
  return {foreign[1], key_type(foreign[1]), 'none', foreign[2]}
end
redis.call('PUBLISH', channel, 'p')
return {}
