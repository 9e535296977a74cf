-- add: the priority layout's add, across every instance, behind the waiting items that
-- fell due before it (moved first).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 priority, 5 the trace context of the add
--   (absent for none; see includes/trace_add.lua)
-- Output: 0 (already queued; raised if the priority was higher), 1 (marked dirty while
-- being processed) or 2 (queued)
-- Invariants: the reads come first and check the types of the keys they read; the
-- others written are checked before the first write; the trace record, on a key checked
-- first, is written last. So a key of another type fails the script before it writes
-- anything.
-- @include queue_keys
-- @include now_us
-- @include move_due
-- @include queue_due_priority
-- @include notify_if_none_was_ready
-- @include add_dirty
-- @include check
-- @include add_ready
-- @include notify
-- @include trace_first
-- @include trace_add

local item, priority, context = ARGV[3], tonumber(ARGV[4]), ARGV[5] or ''

if context ~= '' then
  check(prioritiesKey)
end
local now = now_us()
local _, queued_due = move_due(now, DUE_BATCH, queue_due_priority, PRIORITY_WRITES)
notify_if_none_was_ready(queued_due)
local first = context ~= '' and trace_first(item)
local added
if redis.call('HEXISTS', leasesKey, item) == 1 then
  added = add_dirty(item, priority, now)
else
  local ready_before = redis.call('ZCARD', readyKey)
  check(dirtyKey, sinceKey)
  added = add_ready(item, priority, now)
  if added == 2 and ready_before == 0 then
    notify('r')
  end
end
trace_add(item, context, first)
return added
