-- ARGV[3] item, ARGV[4] token. A holder whose lease was lost (another token, or none)
-- changes nothing: the fence. Returns 0 (stale), 1 (done) or 2 (done, and queued again
-- because it was added while processing).
if redis.call('HGET', KEYS[4], ARGV[3]) ~= ARGV[4] then
  return 0
end
redis.call('HDEL', KEYS[4], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then
  requeue(ARGV[3])
  notify_if_was_empty(1)
  return 2
end
return 1
