-- tick: moves due waiting items into the queue (with add's rules) and hands the items
-- whose lease expired back to the queue (at least once), at most ARGV[3] of each; keeps
-- the reporter role, held by one handle at a time so that the shared gauges, summed over
-- the processes, count each item once. An idle queue costs the first of each sorted set,
-- the list's length, and the role's check and renewal.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 most items to move and to reap, 4 this handle's id, 5 how long the reporter
-- role lasts without renewal, in ms
-- Reply: {moved, reaped, µs until the next ready time or -1, µs until the next lease
-- expiry or -1, items ready, 1 if this handle reports the shared gauges}
check(1, 2, 3, 4, 5, 7)
local now = now_us()
local batch = tonumber(ARGV[3])
local queued = 0
local moved = 0
local reaped = 0
local next_due = until_first(KEYS[5], now)
if next_due == 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now, 'LIMIT', 0, batch)
  for _, item in ipairs(due) do
    redis.call('ZREM', KEYS[5], item)
    if add_item(item, now) == 2 then
      queued = queued + 1
    end
  end
  moved = #due
  next_due = until_first(KEYS[5], now)
end
local next_expiry = until_first(KEYS[3], now)
if next_expiry == 0 then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, batch)
  for _, item in ipairs(expired) do
    redis.call('ZREM', KEYS[3], item)
    redis.call('HDEL', KEYS[4], item)
    -- Not in the list while it was processing: queue it once, dirty or not.
    redis.call('HSETNX', KEYS[2], item, now)
    redis.call('RPUSH', KEYS[1], item)
    queued = queued + 1
  end
  reaped = #expired
  next_expiry = until_first(KEYS[3], now)
end
local reporter = 0
local holder = redis.call('GET', KEYS[7])
if not holder then
  redis.call('SET', KEYS[7], ARGV[4], 'PX', ARGV[5])
  reporter = 1
elseif holder == ARGV[4] then
  redis.call('PEXPIRE', KEYS[7], ARGV[5])
  reporter = 1
end
notify_if_was_empty(queued)
return {moved, reaped, next_due, next_expiry, redis.call('LLEN', KEYS[1]), reporter}
