-- done: ends the processing of an item. A holder whose lease was lost (another token, or
-- none) changes nothing: the fence.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 token
-- Reply: 0 (stale: the lease was lost), 1 (done) or 2 (done, and queued again because it
-- was added while being processed)
return done_list(ARGV[3], ARGV[4])
