-- done: the priority layout's done, of many items in one call. A holder whose lease was
-- lost (another token, or none) changes nothing: the fence, lease by lease. An item added
-- while it was processed lines up again with the highest priority of those adds (and of
-- a wait still pending).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 its token, then more item, token pairs
-- Output: how many leases it ended (the others were lost)
-- Invariants: done_priority's: the reads come first, and the keys written and not read
-- are checked before the first write.
-- @include done_priority

return done_priority(3)
