-- get: leases the first ready item to the caller's token. Tokens are made by the caller,
-- unique for ever (a handle's random id and a count), so a restart of Redis or a failover
-- that loses writes can never hand out a token a former holder still has.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 lease in µs, 4 token
-- Reply: {} when none is ready, else {item, µs it was queued, items still ready}
-- LPOP is the first write and checks the list itself; HGET checks the dirty hash before
-- its HDEL; the two keys written only after them are checked first.
check(3, 4)
local item = redis.call('LPOP', KEYS[1])
if not item then
  return {}
end
local now = now_us()
local queued_at = tonumber(redis.call('HGET', KEYS[2], item) or now)
redis.call('HDEL', KEYS[2], item)
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), item)
redis.call('HSET', KEYS[4], item, ARGV[4])
return {item, math.max(0, now - queued_at), redis.call('LLEN', KEYS[1])}
