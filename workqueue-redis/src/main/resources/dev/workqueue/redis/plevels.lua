-- plevels: the ready items of the priority layout per priority, highest first, in one
-- read: O(log n) per priority that has ready items.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: nothing more
-- Reply: a triple per priority: the priority, its ready items, and the µs its first in
-- line has been ready
local now = now_us()
local levels = {}
local from = '-inf'
while true do
  local first = redis.call('ZRANGEBYSCORE', KEYS[8], from, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if not first[1] then
    return levels
  end
  local score = first[2]
  local item = string.sub(first[1], 21)
  local numbers = redis.call('HGET', KEYS[10], 'r' .. item)
  local since = redis.call('ZSCORE', KEYS[9], string.sub(numbers, 20) .. ':' .. item)
  levels[#levels + 1] = 0 - tonumber(score)
  levels[#levels + 1] = redis.call('ZCOUNT', KEYS[8], score, score)
  levels[#levels + 1] = math.max(0, now - tonumber(since))
  from = '(' .. score
end
