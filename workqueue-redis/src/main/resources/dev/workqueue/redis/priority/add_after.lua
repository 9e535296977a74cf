-- add_after: the priority layout's add_after: puts an item in the waiting set, where it
-- keeps the earliest ready time and the highest priority of its adds. Wakes the
-- instances' timers when the item became the first due.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 delay in µs (at most 2^52, so that the sum stays an
--   exact double), 4 item, 5 priority, 6 the trace context of the add (absent for none;
--   see includes/trace_add.lua)
-- Output: 1
-- Invariants: the keys written are checked before the first write.
-- @include queue_keys
-- @include check
-- @include wait_with
-- @include now_us
-- @include notify
-- @include trace_first
-- @include trace_add

local delay_us, item, priority, context = ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6] or ''

check(waitingKey)
if context ~= '' then
  check(prioritiesKey)
  trace_add(item, context, trace_first(item))
end
if wait_with(item, now_us() + tonumber(delay_us), priority) then
  notify('w')
end
return 1
