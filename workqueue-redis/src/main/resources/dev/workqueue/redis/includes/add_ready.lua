-- add_ready: client-go's add with priorities, for an item not being processed: a
-- duplicate of a ready item raises it if its priority is higher (it lines up at the back
-- of its new level, keeping when it became ready); any other item lines up with the
-- higher of its priority and that of its wait, if it waits (the wait stays, as
-- client-go's). Returns 0 (duplicate) or 2 (queued).
-- @include queue_keys
-- @include line_up
local function add_ready(item, priority, now)
  local fields = redis.call('HMGET', prioritiesKey, 'r' .. item, 'w' .. item)
  local numbers = fields[1]
  if numbers then
    local member = string.sub(numbers, 1, 19) .. ':' .. item
    if priority > 0 - tonumber(redis.call('ZSCORE', readyKey, member)) then
      line_up(item, priority, nil, string.sub(numbers, 20))
      redis.call('ZREM', readyKey, member)
    end
    return 0
  end
  priority = math.max(priority, tonumber(fields[2] or priority))
  line_up(item, priority, now, nil)
  redis.call('HSETNX', dirtyKey, item, now)
  return 2
end
