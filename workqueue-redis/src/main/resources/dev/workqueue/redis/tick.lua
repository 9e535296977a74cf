-- KEYS[8] the reporter key. ARGV[3] most items to move and to reap, ARGV[4] this
-- handle's id, ARGV[5] how long, in ms, the reporter role lasts without renewal. Moves due waiting items into the queue (with
-- add's rules) and hands the items whose lease expired back to the queue (at least
-- once). Returns {moved, reaped, µs until the next ready time or -1, µs until the next
-- lease expiry or -1, items ready, 1 if this handle reports the shared gauges}. An idle
-- queue costs five commands: the first of each sorted set, the list's length, and the
-- reporter role's check and renewal.
local now = now_us()
local batch = tonumber(ARGV[3])
local queued = 0
local moved = 0
local reaped = 0
local next_due = until_first(KEYS[6], now)
if next_due == 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now, 'LIMIT', 0, batch)
  for _, item in ipairs(due) do
    redis.call('ZREM', KEYS[6], item)
    if add_item(item, now) == 2 then
      queued = queued + 1
    end
  end
  moved = #due
  next_due = until_first(KEYS[6], now)
end
local next_expiry = until_first(KEYS[3], now)
if next_expiry == 0 then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, batch)
  for _, item in ipairs(expired) do
    redis.call('ZREM', KEYS[3], item)
    redis.call('HDEL', KEYS[4], item)
    -- Not in the list while it was processing: queue it once, dirty or not.
    redis.call('HSETNX', KEYS[2], item, now)
    requeue(item)
    queued = queued + 1
  end
  reaped = #expired
  next_expiry = until_first(KEYS[3], now)
end
notify_if_was_empty(queued)
-- One handle at a time reports the shared gauges, so that their sum over processes
-- counts each item once; the role passes on when its holder stops renewing it.
local reporter = 0
local holder = redis.call('GET', KEYS[8])
if not holder then
  redis.call('SET', KEYS[8], ARGV[4], 'PX', ARGV[5])
  reporter = 1
elseif holder == ARGV[4] then
  redis.call('PEXPIRE', KEYS[8], ARGV[5])
  reporter = 1
end
return {moved, reaped, next_due, next_expiry, redis.call('LLEN', KEYS[1]), reporter}
