-- pget: leases the next ready item of the priority layout to the caller's token: the
-- item ready longest if it has been ready longer than the starvation timeout, else the
-- first of the highest priority. Tokens are made as get.lua says.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 lease in µs, 4 token, 5 starvation timeout in µs, or -1 for none
-- Reply: {} when none is ready, else {item, µs it was queued, items still ready, the
-- priority it is handed out with}
-- Every read comes before the first write (ZREM); the keys written and not read are
-- checked first.
local starvation = tonumber(ARGV[5])
if starvation >= 0 then
  check(3, 4)
else
  check(3, 4, 9)
end
local now = now_us()
local member, since_member, priority, item, numbers
if starvation >= 0 then
  local oldest = redis.call('ZRANGE', KEYS[9], 0, 0, 'WITHSCORES')
  if oldest[1] and now - tonumber(oldest[2]) > starvation then
    since_member = oldest[1]
    item = string.sub(since_member, 21)
    numbers = redis.call('HGET', KEYS[10], 'r' .. item)
    member = string.sub(numbers, 1, 19) .. ':' .. item
    priority = 0 - tonumber(redis.call('ZSCORE', KEYS[8], member))
  end
end
if not member then
  local first = redis.call('ZRANGE', KEYS[8], 0, 0, 'WITHSCORES')
  if not first[1] then
    return {}
  end
  member = first[1]
  priority = 0 - tonumber(first[2])
  item = string.sub(member, 21)
  numbers = redis.call('HGET', KEYS[10], 'r' .. item)
  since_member = string.sub(numbers, 20) .. ':' .. item
end
local queued_at = tonumber(redis.call('HGET', KEYS[2], item) or now)
redis.call('ZREM', KEYS[8], member)
redis.call('ZREM', KEYS[9], since_member)
redis.call('HDEL', KEYS[10], 'r' .. item)
redis.call('HSET', KEYS[10], 'h' .. item, priority)
redis.call('HDEL', KEYS[2], item)
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), item)
redis.call('HSET', KEYS[4], item, ARGV[4])
local left = redis.call('ZCARD', KEYS[8])
if left == 0 then
  -- No number is in use: the next item ready starts them again (and a drained queue
  -- leaves no key behind).
  redis.call('HDEL', KEYS[10], '#')
end
return {item, math.max(0, now - queued_at), left, priority}
