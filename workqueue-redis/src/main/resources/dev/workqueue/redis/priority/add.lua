-- add: the priority layout's add of each item, across every instance, item by item in the
-- order given, behind the waiting items that fell due before them (moved first).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), then an item and its priority per add, and last, when
--   their count is odd, the trace context of the adds (absent for none; see
--   includes/trace_add.lua). One add is ARGV 3 and 4 (5 the context).
-- Output: how many of the adds were not duplicates (marked dirty while being processed,
-- or queued); a duplicate of a queued item raises it if its priority is higher
-- Invariants: the reads come first and check the types of the keys they read (an item's
-- reads that follow another's writes read keys the first item read already); the
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

local last, context = #ARGV, ''
if (last - 2) % 2 == 1 then
  context = ARGV[last]
  last = last - 1
end

if context ~= '' then
  check(prioritiesKey)
end
local now = now_us()
local _, queued_due = move_due(now, DUE_BATCH, queue_due_priority, PRIORITY_WRITES)
notify_if_none_was_ready(queued_due)
-- The reads of the leases first: which items are being processed (marked dirty) and
-- whether any is to be queued, whose keys are then read or checked before the first item
-- writes (an item being processed writes neither the ready nor the since set).
-- Several adds, some to queue: the ready-order counter is incremented by 0 first, so
-- that a field that is not a number fails the script here, not after another item was
-- written (line_up's HINCRBY is a lone item's first write; only the counter's 2^63rd
-- increment could still fail a later item).
local held, readies = {}, 0
for i = 3, last, 2 do
  held[i] = redis.call('HEXISTS', leasesKey, ARGV[i]) == 1
  readies = readies + (held[i] and 0 or 1)
end
local ready_before = readies > 0 and redis.call('ZCARD', readyKey)
if readies > 0 then
  check(dirtyKey, sinceKey)
end
if readies > 0 and last > 4 then
  redis.call('HINCRBY', prioritiesKey, '#', 0)
end
local added, queued = 0, false
for i = 3, last, 2 do
  local item, priority = ARGV[i], tonumber(ARGV[i + 1])
  local first = context ~= '' and trace_first(item)
  local outcome
  if held[i] then
    outcome = add_dirty(item, priority, now)
  else
    outcome = add_ready(item, priority, now)
    queued = queued or outcome == 2
  end
  added = added + math.min(outcome, 1)
  trace_add(item, context, first)
end
if queued and ready_before == 0 then
  notify('r')
end
return added
