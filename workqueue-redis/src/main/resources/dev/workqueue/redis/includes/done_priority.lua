-- done_priority: the priority layout's done (see done_list): an item added while it was
-- processed lines up again with the highest priority of those adds (and of a wait still
-- pending). The reads come first; the keys written and not read are checked before the
-- first write.
-- @include queue_keys
-- @include held_priorities
-- @include check
-- @include forget_held
-- @include line_up
-- @include now_us
-- @include notify_if_none_was_ready
-- @include grant
local function done_priority(item, token)
  if redis.call('HGET', leasesKey, item) ~= token then
    return 0
  end
  local dirty_priority = held_priorities(item)
  if dirty_priority then
    -- A wait still pending keeps the highest priority of all the item's adds.
    dirty_priority = math.max(dirty_priority, tonumber(redis.call('HGET', prioritiesKey, 'w' .. item) or dirty_priority))
    check(processingKey, readyKey, sinceKey, grantsKey)
  else
    check(processingKey, grantsKey)
  end
  forget_grant(token)
  forget_held(item)
  redis.call('HDEL', leasesKey, item)
  redis.call('ZREM', processingKey, item)
  if not dirty_priority then
    return 1
  end
  line_up(item, dirty_priority, now_us(), nil)
  notify_if_none_was_ready(1)
  return 2
end
