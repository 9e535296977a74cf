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
return run_tick(queue_due_list, LIST_WRITES, function(item, now)
  -- Not in the list while it was processing: queue it once, dirty or not.
  redis.call('HSETNX', KEYS[2], item, now)
  redis.call('RPUSH', KEYS[1], item)
  return true
end, notify_if_was_empty, function()
  return redis.call('LLEN', KEYS[1])
end)
