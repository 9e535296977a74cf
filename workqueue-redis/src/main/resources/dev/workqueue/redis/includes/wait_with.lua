-- wait_with: puts an item in the waiting set: the earlier ready time and the higher
-- priority win. Returns true if it became the first due.
-- @include queue_keys
local function wait_with(item, ready, priority)
  local field = 'w' .. item
  local before = redis.call('HGET', prioritiesKey, field)
  redis.call('ZADD', waitingKey, 'LT', ready, item)
  redis.call('HSET', prioritiesKey, field, math.max(priority, tonumber(before or priority)))
  return redis.call('ZRANGE', waitingKey, 0, 0)[1] == item
end
