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
return run_tick(function(item, now)
  local field = 'w' .. item
  local priority = tonumber(redis.call('HGET', KEYS[10], field) or 0)
  redis.call('HDEL', KEYS[10], field)
  if redis.call('HEXISTS', KEYS[4], item) == 1 then
    add_dirty(item, priority, now)
    return false
  end
  return add_ready(item, priority, now) == 2
end, function(item, now)
  local dirty_priority, priority = held_priorities(item)
  forget_held(item)
  return add_ready(item, math.max(priority, dirty_priority or priority), now) == 2
end, notify_if_none_was_ready, function()
  return redis.call('ZCARD', KEYS[8])
end)
