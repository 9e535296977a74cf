-- pdone: the priority layout's done. A holder whose lease was lost (another token, or
-- none) changes nothing: the fence. An item added while it was processed lines up again
-- with the highest priority of those adds (and of a wait still pending).
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 token
-- Reply: 0 (stale: the lease was lost), 1 (done) or 2 (done, and queued again because it
-- was added while being processed)
-- The reads come first; the keys written and not read are checked before the first write.
if redis.call('HGET', KEYS[4], ARGV[3]) ~= ARGV[4] then
  return 0
end
local dirty_priority = held_priorities(ARGV[3])
if dirty_priority then
  -- A wait still pending keeps the highest priority of all the item's adds.
  dirty_priority = math.max(dirty_priority, tonumber(redis.call('HGET', KEYS[10], 'w' .. ARGV[3]) or dirty_priority))
  check(3, 8, 9)
else
  check(3)
end
forget_held(ARGV[3])
redis.call('HDEL', KEYS[4], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
if not dirty_priority then
  return 1
end
line_up(ARGV[3], dirty_priority, now_us(), nil)
notify_if_none_was_ready(1)
return 2
