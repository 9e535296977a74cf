-- check_types: run once when a handle starts. Looks, without writing, for a key of the
-- queue that holds another type than the queue keeps there, then publishes a 'p' notice
-- (which the instances ignore) so that a user without the right to publish to the
-- queue's channel fails here, at start-up, rather than silently losing every notice.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 the layout of the ready items, 'list' or 'priority'
--   (absent: not checked)
-- Output: {key, its type, the type the queue keeps there}, or {} when all fit, or
-- {key, its type, 'none', the other layout} when the key belongs to a queue of the same
-- name with the other layout (see foreign_key)
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
-- Whether the first member of a sorted set has a priority under `prefix`: a priority
-- queue keeps one for each waiting ('w') and handed-out ('h') item, a plain queue none
-- (its hash there holds trace contexts and nothing else).
local function first_has_priority(key, prefix)
  local first = redis.call('ZRANGE', key, 0, 0)[1]
  return first and redis.call('HEXISTS', prioritiesKey, prefix .. first) == 1
end

-- A key of the other layout, while that queue has items in some state: a plain queue's
-- ready list, or its waiting items, which have no priority; a priority queue's ready set
-- and their times, or its waiting and handed-out items, which have one.
local function foreign_key()
  if layout == 'list' then
    for _, key in ipairs({readyKey, sinceKey}) do
      if redis.call('EXISTS', key) == 1 then
        return key, 'priority'
      end
    end
    if first_has_priority(waitingKey, 'w') or first_has_priority(processingKey, 'h') then
      return prioritiesKey, 'priority'
    end
  elseif layout == 'priority' then
    if redis.call('EXISTS', queueKey) == 1 then
      return queueKey, 'list'
    end
    if redis.call('EXISTS', waitingKey) == 1 and not first_has_priority(waitingKey, 'w') then
      return waitingKey, 'list'
    end
  end
end
local foreign, other = foreign_key()
if foreign then
  return {foreign, key_type(foreign), 'none', other}
end
redis.call('PUBLISH', channel, 'p')
return {}
