-- tick: the priority layout's tick (see list/tick.lua): due waiting items are added with
-- the priority of their wait (lined up, raised, or dirty while processing), and items
-- whose lease expired line up again with the priority they were handed out with, or the
-- higher one of the adds while they were processed.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 most items to move and to reap, 4 this handle's id,
--   5 how long the reporter role lasts without renewal, in ms, 6 the queue's mark, as this
--   handle found or set it (mark.lua)
-- Output: {moved, reaped, µs until the next ready time or -1, µs until the next lease
-- expiry or -1, items ready, 1 if this handle reports the shared gauges}
-- Invariants: run_tick's: every read comes before the first write, and the keys written
-- are checked first.
-- @include queue_keys
-- @include run_tick
-- @include queue_due_priority
-- @include held_priorities
-- @include forget_held
-- @include add_ready
-- @include notify_if_none_was_ready

local batch, handle, role_ms, mark = tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]

return run_tick(batch, handle, role_ms, mark, queue_due_priority, PRIORITY_WRITES, function(item, now)
  local dirty_priority, priority = held_priorities(item)
  forget_held(item)
  return add_ready(item, math.max(priority, dirty_priority or priority), now) == 2
end, notify_if_none_was_ready, function()
  return redis.call('ZCARD', readyKey)
end)
