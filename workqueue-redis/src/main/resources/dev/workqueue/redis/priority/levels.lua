-- levels: the ready items of the priority layout per priority, highest first, in one
-- read: O(log n) per priority that has ready items.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), nothing more
-- Output: a triple per priority: the priority, its ready items, and the µs its first in
-- line has been ready
-- Invariants: writes nothing.
-- @include queue_keys
-- @include now_us

local now = now_us()
local levels = {}
local from = '-inf'
while true do
  local first = redis.call('ZRANGEBYSCORE', readyKey, from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if not first[1] then
    return levels
  end
  local score = first[2]
  local item = string.sub(first[1], 21)
  local numbers = redis.call('HGET', prioritiesKey, 'r' .. item)
  local since = redis.call('ZSCORE', sinceKey, string.sub(numbers, 20) .. ':' .. item)
  levels[#levels + 1] = 0 - tonumber(score)
  levels[#levels + 1] = redis.call('ZCOUNT', readyKey, score, score)
  levels[#levels + 1] = math.max(0, now - tonumber(since))
  from = '(' .. score
end
