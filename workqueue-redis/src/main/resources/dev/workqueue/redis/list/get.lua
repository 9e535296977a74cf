-- get: leases up to ARGV[5] ready items, after moving the waiting items that fell due.
-- Tokens are made by the caller, unique for ever (a handle's random id and a count), so
-- that a restart of Redis or a failover that loses writes can never hand out a token a
-- former holder still has; the i-th item gets token_of(ARGV[4], i)
-- (includes/token_of.lua).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 lease in µs, 4 token, 5 most items to lease
-- Output: {item, µs it was queued, its trace record or false, ...}: fewer items than
--   asked when the list ran out
-- Invariants: lease_list's: nothing is left half written when a key holds another type.
-- @include lease_list

local lease_us, token, count = ARGV[3], ARGV[4], tonumber(ARGV[5])

return lease_list(lease_us, token, count)
