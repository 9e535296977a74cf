-- ARGV[3] lease in µs. Leases the first ready item to a new fencing token.
-- Returns {} when none is ready, or {item, token, µs it was queued, items still ready}.
local item = redis.call('LPOP', KEYS[1])
if not item then
  return {}
end
local now = now_us()
local queued_at = tonumber(redis.call('HGET', KEYS[2], item) or now)
redis.call('HDEL', KEYS[2], item)
local token = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), item)
redis.call('HSET', KEYS[4], item, token)
return {item, token, math.max(0, now - queued_at), redis.call('LLEN', KEYS[1])}
