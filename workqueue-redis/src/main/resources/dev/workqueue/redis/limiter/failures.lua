-- failures: an item's count of failures, shared by every instance: the history of the
-- failure-counting limiters (exponential, fast-slow) and the attempts behind max-retries.
-- The hash expires once no failure was counted for ARGV[3] ms, so the history of items
-- that were never forgotten (deleted objects) does not stay for ever. A count carries the
-- id of the attempt that failed, kept beside the count: run again with the same id (Lettuce
-- sends a command again when the connection dropped before its answer), it counts
-- nothing more and answers as the first run did.
-- Input: KEYS 1 counts (HASH, see below); ARGV 1 operation ('count', 'read' or
--   'forget'), 2 item, 3 time to live in ms, 4 the attempt's id ('count' only). The hash
--   maps each item to its failures, then ' ' and the id of the last attempt counted (a
--   count alone, as earlier versions kept it, is read as well).
-- Output: 'count': the failures before this one; 'read': the failures; 'forget': 1 if
-- the item had a count, else 0
-- Invariants: 'read' writes nothing; 'count' reads before it writes.
local countsKey = KEYS[1]
local operation, item, ttl_ms, attempt = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

if operation == 'forget' then
  return redis.call('HDEL', countsKey, item)
end
local failures, last = string.match(redis.call('HGET', countsKey, item) or '0', '^(%d+) ?(.*)$')
failures = tonumber(failures)
if operation ~= 'count' then
  return failures
end
if last == attempt then
  return failures - 1
end
redis.call('HSET', countsKey, item, string.format('%.0f', failures + 1) .. ' ' .. attempt)
redis.call('PEXPIRE', countsKey, ttl_ms)
return failures
