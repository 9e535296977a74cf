-- lease_list: the list layout's lease: moves what fell due, then leases up to `count`
-- ready items, the i-th to token_of(token, i). Returns {item, µs it was queued, its trace
-- record or false (includes/trace_take.lua), ...}, with fewer than `count` items when the
-- list ran out; run again with the same token, the reply of the first run (see grant);
-- arms the wake list while items are left, else removes it (see includes/notify.lua).
-- LPOP is the first write and checks its key; the dirty and grants hashes are read before
-- they are written; the other two writes undo the change if their key holds another type.
-- @include queue_keys
-- @include now_us
-- @include move_due
-- @include queue_due_list
-- @include notify
-- @include token_of
-- @include write_or_undo
-- @include check
-- @include trace_take
-- @include grant
local function lease_list(lease_us, token, count)
  local replayed = granted(token)
  if replayed then
    return replayed
  end
  -- The priorities hash of a plain queue exists only while an item has trace contexts:
  -- a queue without them costs one EXISTS per lease.
  local traced = redis.call('EXISTS', prioritiesKey) == 1
  if traced then
    check(prioritiesKey)
  end
  local now = now_us()
  local _, queued_due = move_due(now, DUE_BATCH, queue_due_list, LIST_WRITES)
  local items = redis.call('LPOP', queueKey, count)
  if not items then
    wake_next(0)
    return {}
  end
  local left = (#items == count) and redis.call('LLEN', queueKey) or 0
  if queued_due > 0 and left > 0 then
    -- More of the items just moved are ready: wake the consumers of every instance.
    notify('r')
  else
    wake_next(left)
  end
  local queued_at = redis.call('HMGET', dirtyKey, unpack(items))
  redis.call('HDEL', dirtyKey, unpack(items))
  local records = {}
  if traced then
    local fields = {}
    for i, item in ipairs(items) do
      fields[i] = 't' .. item
    end
    records = redis.call('HMGET', prioritiesKey, unpack(fields))
    for i, item in ipairs(items) do
      records[i] = trace_take(item, records[i])
    end
  end
  local expiry = now + tonumber(lease_us)
  local scored, held, reply, back = {}, {}, {}, {}
  for i, item in ipairs(items) do
    local at = tonumber(queued_at[i] or now)
    scored[2 * i - 1] = expiry
    scored[2 * i] = item
    held[2 * i - 1] = item
    held[2 * i] = token_of(token, i)
    reply[3 * i - 2] = item
    reply[3 * i - 1] = math.max(0, now - at)
    reply[3 * i] = records[i] or false
    back[#items + 1 - i] = item
  end
  local function put_back()
    redis.call('LPUSH', queueKey, unpack(back))
    for i, item in ipairs(items) do
      redis.call('HSET', dirtyKey, item, queued_at[i] or now)
    end
  end
  write_or_undo(put_back, 'ZADD', processingKey, unpack(scored))
  write_or_undo(function()
    redis.call('ZREM', processingKey, unpack(items))
    put_back()
  end, 'HSET', leasesKey, unpack(held))
  grant(token, reply)
  return reply
end
