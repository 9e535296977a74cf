-- add_traced: list/add.lua for an add made with a trace context, stored for each item
-- (includes/trace_add.lua): a separate script so that an add without one sends what it
-- always did.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 the trace context, 4.. the items
-- Output: how many of the items were not duplicates (marked dirty or queued)
-- Invariants: list/add.lua's; the hash of the contexts is checked before any write.
-- @include add_list

-- The items are ARGV[4] to ARGV[#ARGV], read one by one (as many as the caller sends).
local context, FIRST_ITEM = ARGV[3], 4

return add_list(context, FIRST_ITEM)
