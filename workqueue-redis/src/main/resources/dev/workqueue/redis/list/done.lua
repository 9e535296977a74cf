-- done: ends the processing of an item. A holder whose lease was lost (another token, or
-- none) changes nothing: the fence.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 token
-- Output: 0 (stale: the lease was lost), 1 (done) or 2 (done, and queued again because
-- it was added while being processed)
-- Invariants: done_list's: the reads come first, and the first write checks its key.
-- @include done_list

local item, token = ARGV[3], ARGV[4]

return done_list(item, token)
