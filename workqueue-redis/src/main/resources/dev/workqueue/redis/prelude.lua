-- Shared by every script of a queue. KEYS: 1 queue (LIST, ready items, FIFO), 2 dirty
-- (HASH item -> time it was queued, in µs: client-go's dirty set), 3 processing (ZSET
-- item -> lease expiry), 4 leases (HASH item -> fencing token of the live holder), 5 seq
-- (STRING, token counter), 6 waiting (ZSET item -> ready time), 7 dead (LIST), 8 reporter
-- (STRING, the handle that reports the shared gauges).
-- ARGV: 1 now in µs, or '' for the server's clock; 2 the queue's pub/sub channel.
local function now_us()
  if ARGV[1] ~= '' then
    return tonumber(ARGV[1])
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- client-go's add: no-op if dirty; else dirty, and queued unless being processed.
-- Returns 0 (duplicate), 1 (marked dirty while processing) or 2 (queued).
-- Consumers are woken (notify) only when the ready list goes from empty to not empty:
-- a consumer sleeps only after finding it empty, and one that finds more after its item
-- wakes the next one in its own instance.
local function add_item(item, now)
  if redis.call('HSETNX', KEYS[2], item, now) == 0 then
    return 0
  end
  if redis.call('HEXISTS', KEYS[4], item) == 1 then
    return 1
  end
  redis.call('RPUSH', KEYS[1], item)
  return 2
end

-- Pushes an item that is no longer processing back onto the ready list.
local function requeue(item)
  return redis.call('RPUSH', KEYS[1], item)
end

-- Wakes the consumers of every instance if the ready list holds just what was pushed.
local function notify_if_was_empty(pushed)
  if pushed > 0 and redis.call('LLEN', KEYS[1]) == pushed then
    redis.call('PUBLISH', ARGV[2], 'r')
  end
end

-- Microseconds from now until the earliest score of a ZSET, or -1 when it is empty.
local function until_first(key, now)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] == nil then
    return -1
  end
  return math.max(0, tonumber(first[2]) - now)
end
