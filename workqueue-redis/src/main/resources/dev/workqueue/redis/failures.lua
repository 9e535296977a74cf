-- KEYS[1] failure counts (HASH item -> count). ARGV[3] 'when', 'forget' or 'count',
-- ARGV[4] item. 'when' counts a failure and returns the failures before it.
if ARGV[3] == 'when' then
  return redis.call('HINCRBY', KEYS[1], ARGV[4], 1) - 1
elseif ARGV[3] == 'forget' then
  return redis.call('HDEL', KEYS[1], ARGV[4])
end
return tonumber(redis.call('HGET', KEYS[1], ARGV[4]) or 0)
