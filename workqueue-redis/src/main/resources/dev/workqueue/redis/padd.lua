-- padd: the priority layout's add, across every instance.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 priority
-- Reply: 0 (already queued; raised if the priority was higher), 1 (marked dirty while
-- being processed) or 2 (queued)
-- The reads come first and check the types of the keys they read; the others written
-- are checked before the first write.
local priority = tonumber(ARGV[4])
if redis.call('HEXISTS', KEYS[4], ARGV[3]) == 1 then
  return add_dirty(ARGV[3], priority, now_us())
end
check(2, 8, 9)
local lined_up = add_ready(ARGV[3], priority, now_us())
notify_if_none_was_ready(lined_up / 2)
return lined_up
