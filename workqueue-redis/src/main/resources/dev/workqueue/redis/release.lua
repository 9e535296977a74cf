-- ARGV[3] item, ARGV[4] token, ARGV[5] delay in µs. The holder hands the item back
-- unprocessed (shutdown, or a failed attempt while its instance shuts down): queued again
-- at once, or waiting for the delay, instead of waiting for its lease to run out.
if redis.call('HGET', KEYS[4], ARGV[3]) ~= ARGV[4] then
  return 0
end
local now = now_us()
redis.call('HDEL', KEYS[4], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
local delay = tonumber(ARGV[5])
if delay > 0 then
  redis.call('ZADD', KEYS[6], 'LT', now + delay, ARGV[3])
  return 1
end
redis.call('HSETNX', KEYS[2], ARGV[3], now)
requeue(ARGV[3])
notify_if_was_empty(1)
return 1
