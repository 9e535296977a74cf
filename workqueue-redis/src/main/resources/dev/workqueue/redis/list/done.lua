-- done: ends the processing of items, many in one call. A holder whose lease was lost
-- (another token, or none) changes nothing: the fence, lease by lease.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 its token, then more item, token pairs
-- Output: how many leases it ended (the others were lost); an item added while it was
-- processed is queued again
-- Invariants: done_list's: the reads come first, and the first write checks its key.
-- @include done_list

return done_list(3)
