-- done: the priority layout's done. A holder whose lease was lost (another token, or
-- none) changes nothing: the fence. An item added while it was processed lines up again
-- with the highest priority of those adds (and of a wait still pending).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 token
-- Output: 0 (stale: the lease was lost), 1 (done) or 2 (done, and queued again because
-- it was added while being processed)
-- Invariants: done_priority's: the reads come first, and the keys written and not read
-- are checked before the first write.
-- @include done_priority

local item, token = ARGV[3], ARGV[4]

return done_priority(item, token)
