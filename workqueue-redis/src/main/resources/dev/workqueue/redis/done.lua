-- done: ends the processing of an item. A holder whose lease was lost (another token, or
-- none) changes nothing: the fence.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 token
-- Reply: 0 (stale: the lease was lost), 1 (done) or 2 (done, and queued again because it
-- was added while being processed)
check(1, 2, 3, 4)
if not end_lease(ARGV[3], ARGV[4]) then
  return 0
end
if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then
  redis.call('RPUSH', KEYS[1], ARGV[3])
  notify_if_was_empty(1)
  return 2
end
return 1
