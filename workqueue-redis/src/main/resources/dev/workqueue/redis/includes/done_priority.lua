-- done_priority: the priority layout's done of many leases (see done_list): an item added
-- while it was processed lines up again with the highest priority of those adds (and of a
-- wait still pending), in the order given. Returns how many leases it ended. The reads
-- come first (the leases, then the held and dirty priorities of the leases held, in one
-- HMGET each); the first write, ZREM, checks its key; the priorities and leases were
-- read; a grants key of another type holds no grant to forget (pcall, and only the get's
-- first item forgets it, as in done_list); the ready and since sets, written only when an
-- item was dirty, are checked before the first write then.
-- At most QueueLayout.DONE_BATCH (1000) leases a call: unpack takes some 8000 values, and
-- the priorities' HMGET two a lease.
-- @include queue_keys
-- @include held_leases
-- @include check
-- @include line_up
-- @include now_us
-- @include notify_if_none_was_ready
local function done_priority(from)
  local held, grants = held_leases(from)
  if #held == 0 then
    return 0
  end
  local fields = {}
  for _, item in ipairs(held) do
    fields[#fields + 1] = 'h' .. item
    fields[#fields + 1] = 'd' .. item
  end
  local priorities = redis.call('HMGET', prioritiesKey, unpack(fields))
  local dirty, dirty_priorities, waits = {}, {}, {}
  for i, item in ipairs(held) do
    local priority = tonumber(priorities[2 * i])
    if priority then
      dirty[#dirty + 1] = item
      dirty_priorities[#dirty] = priority
      waits[#dirty] = 'w' .. item
    end
  end
  if #dirty > 0 then
    -- A wait still pending keeps the highest priority of all the item's adds.
    local waiting = redis.call('HMGET', prioritiesKey, unpack(waits))
    for i = 1, #dirty do
      dirty_priorities[i] = math.max(dirty_priorities[i], tonumber(waiting[i] or dirty_priorities[i]))
    end
    check(readyKey, sinceKey)
  end
  redis.call('ZREM', processingKey, unpack(held))
  redis.call('HDEL', prioritiesKey, unpack(fields))
  redis.call('HDEL', leasesKey, unpack(held))
  if #grants > 0 then
    redis.pcall('HDEL', grantsKey, unpack(grants))
  end
  if #dirty == 0 then
    return #held
  end
  local now = now_us()
  for i, item in ipairs(dirty) do
    line_up(item, dirty_priorities[i], now, nil)
  end
  notify_if_none_was_ready(#dirty)
  return #held
end
