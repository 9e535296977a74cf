-- queue_due_priority: the priority layout's move of a due item (see move_due): added
-- with the priority of its wait (lined up, raised, or dirty while processing).
-- PRIORITY_WRITES: as LIST_WRITES.
-- @include queue_keys
-- @include add_dirty
-- @include add_ready
local PRIORITY_WRITES = {dirtyKey, leasesKey, readyKey, sinceKey, prioritiesKey}
local function queue_due_priority(item, now)
  local field = 'w' .. item
  local priority = tonumber(redis.call('HGET', prioritiesKey, field) or 0)
  redis.call('HDEL', prioritiesKey, field)
  if redis.call('HEXISTS', leasesKey, item) == 1 then
    add_dirty(item, priority, now)
    return false
  end
  return add_ready(item, priority, now) == 2
end
