-- add_dirty: marks an item being processed dirty, with the highest priority of the adds.
-- Returns 0 (already dirty) or 1.
-- @include queue_keys
local function add_dirty(item, priority, now)
  local field = 'd' .. item
  local before = redis.call('HGET', prioritiesKey, field)
  local added = redis.call('HSETNX', dirtyKey, item, now)
  redis.call('HSET', prioritiesKey, field, math.max(priority, tonumber(before or priority)))
  return added
end
