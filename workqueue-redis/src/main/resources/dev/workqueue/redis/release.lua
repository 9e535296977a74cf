-- ARGV[3] item, ARGV[4] token. The holder hands the item back unprocessed (shutdown):
-- it is queued again at once instead of waiting for its lease to run out.
if redis.call('HGET', KEYS[4], ARGV[3]) ~= ARGV[4] then
  return 0
end
local now = now_us()
redis.call('HDEL', KEYS[4], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
redis.call('HSETNX', KEYS[2], ARGV[3], now)
requeue(ARGV[3])
notify_if_was_empty(1)
return 1
