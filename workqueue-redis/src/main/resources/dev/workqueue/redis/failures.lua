-- failures: an item's count of failures, shared by every instance: the history of the
-- failure-counting limiters (exponential, fast-slow) and the attempts behind max-retries.
-- The hash expires once no failure was counted for ARGV[3] ms, so the history of items
-- that were never forgotten (deleted objects) does not stay for ever.
-- KEYS: 1 counts (HASH item -> failures)
-- ARGV: 1 operation ('count', 'read' or 'forget'), 2 item, 3 time to live in ms
-- Reply: 'count': the failures before this one; 'read': the failures; 'forget': 1 if the
-- item had a count, else 0
if ARGV[1] == 'count' then
  local before = redis.call('HINCRBY', KEYS[1], ARGV[2], 1) - 1
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return before
elseif ARGV[1] == 'forget' then
  return redis.call('HDEL', KEYS[1], ARGV[2])
end
return tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or 0)
