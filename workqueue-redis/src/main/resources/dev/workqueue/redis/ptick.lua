-- ptick: the priority layout's tick (see tick.lua): due waiting items are added with the
-- priority of their wait (lined up, raised, or dirty while processing), and items whose
-- lease expired line up again with the priority they were handed out with, or the higher
-- one of the adds while they were processed.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 most items to move and to reap, 4 this handle's id, 5 how long the reporter
-- role lasts without renewal, in ms
-- Reply: {moved, reaped, µs until the next ready time or -1, µs until the next lease
-- expiry or -1, items ready, 1 if this handle reports the shared gauges}
return run_tick(queue_due_priority, PRIORITY_WRITES, function(item, now)
  local dirty_priority, priority = held_priorities(item)
  forget_held(item)
  return add_ready(item, math.max(priority, dirty_priority or priority), now) == 2
end, notify_if_none_was_ready, function()
  return redis.call('ZCARD', KEYS[8])
end)
