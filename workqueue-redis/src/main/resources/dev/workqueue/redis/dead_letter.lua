-- ARGV[3] item, ARGV[4] token, ARGV[5] record. Moves an item that cannot be decoded out
-- of the queue, into the dead-letter list, with the record saying why.
if redis.call('HGET', KEYS[4], ARGV[3]) ~= ARGV[4] then
  return 0
end
redis.call('HDEL', KEYS[4], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('RPUSH', KEYS[7], ARGV[5])
return 1
