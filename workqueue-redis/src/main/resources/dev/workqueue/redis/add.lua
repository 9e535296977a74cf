-- add: client-go's add, across every instance.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item
-- Reply: 0 (already queued), 1 (marked dirty while being processed) or 2 (queued)
-- The reads come first and check the types of the keys written after them (a read of a
-- key of the wrong type fails before anything is written); the length read before the
-- push tells whether the list was empty.
local length = redis.call('LLEN', KEYS[1])
local processing = redis.call('HEXISTS', KEYS[4], ARGV[3]) == 1
if redis.call('HSETNX', KEYS[2], ARGV[3], now_us()) == 0 then
  return 0
end
if processing then
  return 1
end
push_ready(ARGV[3], length)
return 2
