-- tick: moves due waiting items into the queue (with add's rules) and hands the items
-- whose lease expired back to the queue (at least once), at most ARGV[3] of each; keeps
-- the reporter role, held by one handle at a time so that the shared gauges, summed over
-- the processes, count each item once. An idle queue costs the first of each sorted set,
-- the list's length, and the role's check and renewal (with the mark's SET NX, which writes
-- nothing while the mark is there).
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
-- @include queue_due_list
-- @include notify_if_was_empty

local batch, handle, role_ms, mark = tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]

return run_tick(batch, handle, role_ms, mark, queue_due_list, LIST_WRITES, function(item, now)
  -- Not in the list while it was processing: queue it once, dirty or not.
  redis.call('HSETNX', dirtyKey, item, now)
  redis.call('RPUSH', queueKey, item)
  return true
end, notify_if_was_empty, function()
  return redis.call('LLEN', queueKey)
end)
