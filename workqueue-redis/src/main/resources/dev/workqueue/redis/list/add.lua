-- add: client-go's add of each item, across every instance: a duplicate of a queued item
-- changes nothing; an item being processed is marked dirty; any other is queued, behind
-- the waiting items that fell due before it (moved first).
-- With a trace context, stores it for each item (includes/trace_add.lua).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 the trace context of the add ('' for none), 4.. the
--   items
-- Output: how many of them were not duplicates (marked dirty or queued)
-- Invariants: each item's reads come first; HSETNX is its first write and checks its
-- key; RPUSH undoes the item's mark if the list holds another type. The traces key is
-- checked before any write when a context comes.
-- @include queue_keys
-- @include now_us
-- @include move_due
-- @include queue_due_list
-- @include notify_if_was_empty
-- @include write_or_undo
-- @include notify
-- @include check
-- @include trace_add

-- The items are ARGV[4] to ARGV[#ARGV], read one by one (as many as the caller sends).
local context, FIRST_ITEM = ARGV[3], 4

if context ~= '' then
  check(tracesKey)
end
local now = now_us()
local _, queued_due = move_due(now, DUE_BATCH, queue_due_list, LIST_WRITES)
notify_if_was_empty(queued_due)
local added = 0
local woken = queued_due > 0
for i = FIRST_ITEM, #ARGV do
  local item = ARGV[i]
  local processing = redis.call('HEXISTS', leasesKey, item) == 1
  local waits = context ~= '' and redis.call('ZSCORE', waitingKey, item)
  local marked = redis.call('HSETNX', dirtyKey, item, now) == 1
  trace_add(item, context, marked and not waits)
  if marked then
    added = added + 1
    if not processing then
      local length = write_or_undo(function()
        redis.call('HDEL', dirtyKey, item)
      end, 'RPUSH', queueKey, item)
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
