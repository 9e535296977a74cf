-- ptick: the priority layout's tick (see tick.lua): due waiting items are added with the
-- priority of their wait (lined up, raised, or dirty while processing), and items whose
-- lease expired line up again with the priority they were handed out with, or the higher
-- one of the adds while they were processed.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 most items to move and to reap, 4 this handle's id, 5 how long the reporter
-- role lasts without renewal, in ms
-- Reply: {moved, reaped, µs until the next ready time or -1, µs until the next lease
-- expiry or -1, items ready, 1 if this handle reports the shared gauges}
check(2, 3, 4, 5, 7, 8, 9, 10)
local now = now_us()
local batch = tonumber(ARGV[3])
local queued = 0
local moved = 0
local reaped = 0
local next_due = until_first(KEYS[5], now)
if next_due == 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now, 'LIMIT', 0, batch)
  for _, item in ipairs(due) do
    local field = 'w' .. item
    local priority = tonumber(redis.call('HGET', KEYS[10], field) or 0)
    redis.call('ZREM', KEYS[5], item)
    redis.call('HDEL', KEYS[10], field)
    if redis.call('HEXISTS', KEYS[4], item) == 1 then
      add_dirty(item, priority, now)
    elseif add_ready(item, priority, now) == 2 then
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
    local dirty_priority, priority = held_priorities(item)
    forget_held(item)
    redis.call('ZREM', KEYS[3], item)
    redis.call('HDEL', KEYS[4], item)
    if add_ready(item, math.max(priority, dirty_priority or priority), now) == 2 then
      queued = queued + 1
    end
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
notify_if_none_was_ready(queued)
return {moved, reaped, next_due, next_expiry, redis.call('ZCARD', KEYS[8]), reporter}
