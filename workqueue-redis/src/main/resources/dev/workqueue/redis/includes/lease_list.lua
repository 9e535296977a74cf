-- lease_list: the list layout's lease: nothing while the queue is paused (the first
-- command, one EXISTS, reads the paused flag and which of the priorities hash, the waiting
-- set and the list exist, see includes/key_flags.lua); else moves what fell due, then leases up to `count`
-- ready items, the i-th to token_of(token, i). Returns {item, µs it was queued, its trace
-- record or false (includes/trace_take.lua), ...}, with fewer than `count` items when the
-- list ran out; run again with the same token, the reply of the first run (see grant:
-- grant_once, after the leases are written, so the first run pays no read of the grants);
-- arms the wake list while items are left, else removes it (see includes/notify.lua);
-- a run again that moved due items wakes the consumers of every instance.
-- LPOP is the first write and checks its key; the dirty hash is read right after LPOP,
-- which it puts back if the hash holds another type; the trace records (read only when
-- the priorities hash exists) and the writes that follow (processing, the leases with
-- their grant times, the grant) undo the change if their key holds another type; the
-- trace records are written and the wake-ups sent after them. So a key of another type leaves the keys as they were
-- (the due items are moved only once the keys they go to and the processing set are
-- checked).
-- @include queue_keys
-- @include now_us
-- @include move_due
-- @include queue_due_list
-- @include notify
-- @include token_of
-- @include write_or_undo
-- @include trace_take
-- @include grant
-- @include lease_value
-- @include key_flags
-- The keys a lease writes, checked before the due items move (see move_due).
local LEASE_WRITES = {queueKey, dirtyKey, leasesKey, processingKey}
local function lease_list(lease_us, token, count)
  -- Paused, trace contexts kept, items wait, items are ready.
  local paused, traced, waits, ready = key_flags(pausedKey, prioritiesKey, waitingKey, queueKey)
  if paused then
    -- Paused: nothing is handed out, as if nothing were ready (no due time: the consumers
    -- wait for the resume's wake-up); run again, the first run's answer stands.
    return granted_late(token) or {}
  end
  -- No waiting set: nothing to move, and no TIME for it; no list either: nothing to pop.
  local now, queued_due = nil, 0
  if waits then
    now = now_us()
    queued_due = select(2, move_due(now, DUE_BATCH, queue_due_list, LEASE_WRITES))
  end
  local items = (ready or queued_due > 0) and redis.call('LPOP', queueKey, count)
  if not items then
    -- Run again, a get whose first run leased what was left answers that.
    local replayed = granted_late(token)
    if replayed then
      return replayed
    end
    wake_next(0)
    return {}
  end
  now = now or now_us()
  local left = (#items == count) and redis.call('LLEN', queueKey) or 0
  local back = {}
  for i, item in ipairs(items) do
    back[#items + 1 - i] = item
  end
  local queued_at = write_or_undo(function()
    redis.call('LPUSH', queueKey, unpack(back))
  end, 'HMGET', dirtyKey, unpack(items))
  redis.call('HDEL', dirtyKey, unpack(items))
  local function put_back()
    redis.call('LPUSH', queueKey, unpack(back))
    for i, item in ipairs(items) do
      redis.call('HSET', dirtyKey, item, queued_at[i] or now)
    end
  end
  -- The priorities hash of a plain queue exists only while an item has trace contexts
  -- (read with the paused flag: nothing this script ran since writes it).
  local records = {}
  if traced then
    local fields = {}
    for i, item in ipairs(items) do
      fields[i] = 't' .. item
    end
    records = write_or_undo(put_back, 'HMGET', prioritiesKey, unpack(fields))
  end
  local expiry = now + tonumber(lease_us)
  -- The time every lease value ends with, formatted once (the loop is the script's
  -- costliest Lua per item).
  local granted_at = lease_value('', now)
  local scored, held, reply = {}, {}, {}
  for i = 1, #items do
    local item = items[i]
    local queued = now - tonumber(queued_at[i] or now)
    scored[2 * i - 1] = expiry
    scored[2 * i] = item
    held[2 * i - 1] = item
    held[2 * i] = token_of(token, i) .. granted_at
    reply[3 * i - 2] = item
    reply[3 * i - 1] = (queued > 0) and queued or 0
    reply[3 * i] = records[i] or false
  end
  local function unlease()
    redis.call('ZREM', processingKey, unpack(items))
    put_back()
  end
  write_or_undo(put_back, 'ZADD', processingKey, unpack(scored))
  write_or_undo(unlease, 'HSET', leasesKey, unpack(held))
  local function unhold()
    redis.call('HDEL', leasesKey, unpack(items))
    unlease()
  end
  local granted_reply = grant_once(token, reply, unhold)
  if granted_reply ~= reply then
    -- Run again: what this run leased went back; the first run's answer stands. Items
    -- that fell due since are ready, and the first run left no wake-up: wake as a lease
    -- that leaves items does.
    if queued_due > 0 then
      notify('r')
    end
    return granted_reply
  end
  for i, item in ipairs(items) do
    trace_take(item, records[i])
  end
  if queued_due > 0 and left > 0 then
    -- More of the items just moved are ready: wake the consumers of every instance.
    notify('r')
  else
    wake_next(left)
  end
  return reply
end
