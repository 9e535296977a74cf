-- get: the priority layout's get (see list/get.lua): leases up to ARGV[5] items, each
-- the item ready longest if it has been ready longer than the starvation timeout, else
-- the first of the highest priority.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 lease in µs, 4 token, 5 most items to lease,
--   6 starvation timeout in µs, or -1 for none
-- Output: {item, µs it was queued, the priority it is handed out with, ...}: fewer items
-- than asked when none is left
-- Invariants: lease_priority's: every read of an item comes before its first write, and
-- the keys written and not read are checked before the first.
-- @include lease_priority

local lease_us, token, count, starvation = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])

return lease_priority(lease_us, token, count, starvation)
