-- prelude: shared by every script of a queue, in front of each. It fixes the queue's keys
-- and first two arguments, in the order QueueKeys.all() passes them (a test checks that
-- the two agree):
-- KEYS: 1 queue, 2 dirty, 3 processing, 4 leases, 5 waiting, 6 dead, 7 reporter
-- ARGV: 1 now in µs, or '' for the server's clock; 2 the queue's pub/sub channel
-- Types: queue LIST of ready items, FIFO; dirty HASH item -> µs it was queued (client-go's
-- dirty set); processing ZSET item -> lease expiry in µs; leases HASH item -> token of
-- the live holder; waiting ZSET item -> ready time in µs; dead LIST of records; reporter
-- STRING, the id of the handle that reports the shared gauges.
-- Every script runs with the shebang's defaults: Redis refuses it before its first command
-- when out of memory, so an out-of-memory error never leaves half a change behind. Each
-- script checks the types of the keys it writes before it writes, and its last command
-- (a notice) cannot fail, for the same reason.
local TYPES = {'list', 'hash', 'zset', 'hash', 'zset', 'list', 'string'}

local function now_us()
  if ARGV[1] ~= '' then
    return tonumber(ARGV[1])
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- Fails, before any write, when one of the keys numbered in the arguments holds another
-- type than the queue keeps there (a user's own key under the queue's prefix).
local function check(...)
  for _, i in ipairs({...}) do
    local actual = redis.call('TYPE', KEYS[i])['ok']
    if actual ~= 'none' and actual ~= TYPES[i] then
      error({err = 'WRONGTYPE key ' .. KEYS[i] .. ' holds a ' .. actual .. ', not the ' .. TYPES[i]
        .. ' the queue keeps there'})
    end
  end
end

-- A notice to every instance; a channel the user may not publish to costs the notice
-- only (the instances' heartbeat makes up for it), never the script's writes.
local function notify(notice)
  redis.pcall('PUBLISH', ARGV[2], notice)
end

-- client-go's add: no-op if dirty; else dirty, and queued unless being processed.
-- Returns 0 (duplicate), 1 (marked dirty while processing) or 2 (queued).
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

-- Pushes an item onto the ready list whose length was read before, and wakes the
-- consumers of every instance if it was empty (see notify_if_was_empty).
local function push_ready(item, length_before)
  redis.call('RPUSH', KEYS[1], item)
  if length_before == 0 then
    notify('r')
  end
end

-- Wakes the consumers of every instance if the ready list holds just what was pushed:
-- a consumer sleeps only after finding it empty, and one that finds more after its item
-- wakes the next one in its own instance.
local function notify_if_was_empty(pushed)
  if pushed > 0 and redis.call('LLEN', KEYS[1]) == pushed then
    notify('r')
  end
end

-- Ends the lease of an item if the token still holds it; false (a fenced-off former
-- holder) if not.
local function end_lease(item, token)
  if redis.call('HGET', KEYS[4], item) ~= token then
    return false
  end
  redis.call('HDEL', KEYS[4], item)
  redis.call('ZREM', KEYS[3], item)
  return true
end

-- Microseconds from now until the earliest score of a ZSET, or -1 when it is empty.
local function until_first(key, now)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] == nil then
    return -1
  end
  return math.max(0, tonumber(first[2]) - now)
end
