-- padd: the priority layout's add, across every instance, behind the waiting items that
-- fell due before it (moved first).
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item, 4 priority
-- Reply: 0 (already queued; raised if the priority was higher), 1 (marked dirty while
-- being processed) or 2 (queued)
-- The reads come first and check the types of the keys they read; the others written
-- are checked before the first write.
local priority = tonumber(ARGV[4])
local now = now_us()
local _, queued_due = move_due(now, DUE_BATCH, queue_due_priority, PRIORITY_WRITES)
notify_if_none_was_ready(queued_due)
if redis.call('HEXISTS', KEYS[4], ARGV[3]) == 1 then
  return add_dirty(ARGV[3], priority, now)
end
local ready_before = redis.call('ZCARD', KEYS[8])
check(2, 9)
local added = add_ready(ARGV[3], priority, now)
if added == 2 and ready_before == 0 then
  notify('r')
end
return added
