-- done: ends the processing of an item. A holder whose lease was lost (another token, or
-- none) changes nothing: the fence.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 token
-- Reply: 0 (stale: the lease was lost), 1 (done) or 2 (done, and queued again because it
-- was added while being processed)
-- The reads come first and check the types of the keys they read; the processing set,
-- written but not read, is checked before the first write.
if redis.call('HGET', KEYS[4], ARGV[3]) ~= ARGV[4] then
  return 0
end
local dirty = redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1
local length = dirty and redis.call('LLEN', KEYS[1]) or 0
check(3)
redis.call('HDEL', KEYS[4], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
if not dirty then
  return 1
end
push_ready(ARGV[3], length)
return 2
