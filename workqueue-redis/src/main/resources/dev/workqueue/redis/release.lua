-- release: the holder hands the item back unprocessed (a shutdown, a failed attempt while
-- its instance shuts down, or a lease its instance cannot use): queued again at once, or
-- waiting for the delay, instead of waiting for its lease to run out.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 token, 5 delay in µs (0: at once)
-- Reply: 1 if handed back, 0 if the token no longer held the item
check(1, 2, 3, 4, 5)
if not end_lease(ARGV[3], ARGV[4]) then
  return 0
end
local now = now_us()
local delay = tonumber(ARGV[5])
if delay > 0 and redis.call('HEXISTS', KEYS[2], ARGV[3]) == 0 then
  redis.call('ZADD', KEYS[5], 'LT', now + delay, ARGV[3])
  return 1
end
redis.call('HSETNX', KEYS[2], ARGV[3], now)
redis.call('RPUSH', KEYS[1], ARGV[3])
notify_if_was_empty(1)
return 1
