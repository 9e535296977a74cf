-- add: client-go's add of each item, across every instance: a duplicate of a queued item
-- changes nothing; an item being processed is marked dirty; any other is queued, behind
-- the waiting items that fell due before it (moved first).
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3.. the items
-- Reply: how many of them were not duplicates (marked dirty or queued)
-- Each item's reads come first; HSETNX is its first write and checks its key; RPUSH
-- undoes the item's mark if the list holds another type.
local now = now_us()
local _, queued_due = move_due(now, DUE_BATCH, queue_due_list, LIST_WRITES)
notify_if_was_empty(queued_due)
local added = 0
local woken = queued_due > 0
for i = 3, #ARGV do
  local item = ARGV[i]
  local processing = redis.call('HEXISTS', KEYS[4], item) == 1
  if redis.call('HSETNX', KEYS[2], item, now) == 1 then
    added = added + 1
    if not processing then
      local length = write_or_undo(function()
        redis.call('HDEL', KEYS[2], item)
      end, 'RPUSH', KEYS[1], item)
      if length == 1 and not woken then
        -- The list was empty: wake the consumers of every instance (see
        -- notify_if_was_empty).
        woken = true
        notify('r')
      end
    end
  end
end
return added
