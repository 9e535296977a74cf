-- add_after: puts an item in the waiting set; the earlier ready time wins (ZADD LT also
-- adds a new member). Wakes the instances' timers when the item became the first due.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 delay in µs (at most 2^52, so that the sum stays an
--   exact double), 4 item, 5 the trace context of the add (absent for none)
-- Output: 1
-- Invariants: the keys written are checked before the first write.
-- @include queue_keys
-- @include check
-- @include now_us
-- @include notify
-- @include trace_first
-- @include trace_add

local delay_us, item, context = ARGV[3], ARGV[4], ARGV[5] or ''

check(waitingKey)
if context ~= '' then
  check(prioritiesKey)
  trace_add(item, context, trace_first(item))
end
local ready = now_us() + tonumber(delay_us)
redis.call('ZADD', waitingKey, 'LT', ready, item)
local first = redis.call('ZRANGE', waitingKey, 0, 0)
if first[1] == item then
  notify('w')
end
return 1
