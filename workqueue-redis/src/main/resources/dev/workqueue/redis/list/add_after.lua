-- add_after: puts each item in the waiting set; the earlier ready time wins (ZADD LT also
-- adds a new member), item by item in the order given, so an item given twice keeps the
-- earlier of its two times. Wakes the instances' timers once when one of the items
-- became the first due.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), then a delay in µs (at most 2^52, so that the sum stays an
--   exact double) and an item per add, and last, when their count is odd, the trace
--   context of the adds (absent for none). One add is ARGV 3 and 4 (5 the context).
-- Output: how many adds it took
-- Invariants: the keys written are checked before the first write.
-- @include queue_keys
-- @include check
-- @include now_us
-- @include notify
-- @include trace_first
-- @include trace_add

local last, context = #ARGV, ''
if (last - 2) % 2 == 1 then
  context = ARGV[last]
  last = last - 1
end

check(waitingKey)
if context ~= '' then
  check(prioritiesKey)
end
local now = now_us()
local added = {}
for i = 3, last, 2 do
  local item = ARGV[i + 1]
  if context ~= '' then
    trace_add(item, context, trace_first(item))
  end
  redis.call('ZADD', waitingKey, 'LT', now + tonumber(ARGV[i]), item)
  added[item] = true
end
-- Only the items given are written, and only ever earlier: one of them is first now
-- exactly when one of them became first on its way.
if added[redis.call('ZRANGE', waitingKey, 0, 0)[1]] then
  notify('w')
end
return (last - 2) / 2
