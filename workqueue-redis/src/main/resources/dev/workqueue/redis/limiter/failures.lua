-- failures: an item's count of failures, shared by every instance: the history of the
-- failure-counting limiters (exponential, fast-slow) and the attempts behind max-retries.
-- The hash expires once no failure was counted for ARGV[3] ms, so the history of items
-- that were never forgotten (deleted objects) does not stay for ever.
-- Input: KEYS 1 counts (HASH item -> failures); ARGV 1 operation ('count', 'read' or
--   'forget'), 2 item, 3 time to live in ms
-- Output: 'count': the failures before this one; 'read': the failures; 'forget': 1 if
-- the item had a count, else 0
-- Invariants: 'read' writes nothing.
local countsKey = KEYS[1]
local operation, item, ttl_ms = ARGV[1], ARGV[2], ARGV[3]

if operation == 'count' then
  local before = redis.call('HINCRBY', countsKey, item, 1) - 1
  redis.call('PEXPIRE', countsKey, ttl_ms)
  return before
elseif operation == 'forget' then
  return redis.call('HDEL', countsKey, item)
end
return tonumber(redis.call('HGET', countsKey, item) or 0)
