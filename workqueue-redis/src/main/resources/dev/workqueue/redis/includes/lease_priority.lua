-- lease_priority: the priority layout's lease: nothing while the queue is paused (one
-- EXISTS, after the replay's look, reads the paused flag and which of the waiting and
-- ready sets exist); else moves what fell due (only while items wait), then
-- leases up to `count` items, each the item ready longest if it has been ready longer than the
-- starvation timeout (µs, or negative for none), else the first of the highest priority;
-- the i-th to token_of(token, i). Returns {item, µs it was queued, priority it is handed
-- out with, its trace record or false (includes/trace_take.lua), ...}, with fewer than
-- `count` items when none is left; run again with the same token, the reply of the first
-- run (see grant); an 'r' notice when items it moved are left ready, else arms the wake
-- list while items are left and removes it once none is (see includes/notify.lua). Every read of an item comes before its first write; the keys
-- written and not read are checked before the first.
-- @include queue_keys
-- @include now_us
-- @include move_due
-- @include queue_due_priority
-- @include check
-- @include token_of
-- @include trace_take
-- @include grant
-- @include notify
-- @include lease_value
-- @include key_flags
local function lease_priority(lease_us, token, count, starvation)
  local replayed = granted(token)
  if replayed then
    return replayed
  end
  local paused, waits, ready = key_flags(pausedKey, waitingKey, readyKey)
  if paused then
    -- Paused: nothing is handed out, as if nothing were ready (see lease_list).
    return {}
  end
  local now, queued_due = nil, 0
  if waits then
    now = now_us()
    queued_due = select(2, move_due(now, DUE_BATCH, queue_due_priority, PRIORITY_WRITES))
  end
  if not ready and queued_due == 0 then
    -- Nothing ready: no TIME, no look.
    wake_next(0)
    return {}
  end
  now = now or now_us()
  local reply = {}
  for i = 1, count do
    local member, since_member, priority, item, numbers, record
    if starvation >= 0 then
      local oldest = redis.call('ZRANGE', sinceKey, 0, 0, 'WITHSCORES')
      if oldest[1] and now - tonumber(oldest[2]) > starvation then
        since_member = oldest[1]
        item = string.sub(since_member, 21)
        numbers, record = unpack(redis.call('HMGET', prioritiesKey, 'r' .. item, 't' .. item))
        member = string.sub(numbers, 1, 19) .. ':' .. item
        priority = 0 - tonumber(redis.call('ZSCORE', readyKey, member))
      end
    end
    if not member then
      local first = redis.call('ZRANGE', readyKey, 0, 0, 'WITHSCORES')
      if not first[1] then
        break
      end
      member = first[1]
      priority = 0 - tonumber(first[2])
      item = string.sub(member, 21)
      numbers, record = unpack(redis.call('HMGET', prioritiesKey, 'r' .. item, 't' .. item))
      since_member = string.sub(numbers, 20) .. ':' .. item
    end
    local queued_at = tonumber(redis.call('HGET', dirtyKey, item) or now)
    if i == 1 then
      -- Before the first write: a get that finds nothing checks nothing.
      if starvation >= 0 then
        check(processingKey, leasesKey)
      else
        check(processingKey, leasesKey, sinceKey)
      end
    end
    redis.call('ZREM', readyKey, member)
    redis.call('ZREM', sinceKey, since_member)
    redis.call('HDEL', prioritiesKey, 'r' .. item)
    redis.call('HSET', prioritiesKey, 'h' .. item, priority)
    redis.call('HDEL', dirtyKey, item)
    redis.call('ZADD', processingKey, now + tonumber(lease_us), item)
    redis.call('HSET', leasesKey, item, lease_value(token_of(token, i), now))
    reply[#reply + 1] = item
    reply[#reply + 1] = math.max(0, now - queued_at)
    reply[#reply + 1] = priority
    reply[#reply + 1] = trace_take(item, record)
  end
  local left = (#reply == 4 * count) and redis.call('ZCARD', readyKey) or 0
  if #reply > 0 and left == 0 then
    -- No number is in use: the next item ready starts them again (and a drained queue
    -- leaves no key behind).
    redis.call('HDEL', prioritiesKey, '#')
  end
  grant(token, reply)
  if queued_due > 0 and left > 0 then
    -- More of the items just moved are ready: wake the consumers of every instance (on a
    -- Redis Cluster none waits on the wake list), as lease_list.lua does.
    notify('r')
  else
    wake_next(left)
  end
  return reply
end
