-- get: leases up to ARGV[5] ready items, after moving the waiting items that fell due.
-- Tokens are made by the caller, unique for ever (a handle's random id and a count), so
-- that a restart of Redis or a failover that loses writes can never hand out a token a
-- former holder still has; the i-th item gets token_of(ARGV[4], i) (see prelude.lua).
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 lease in µs, 4 token, 5 most items to lease
-- Reply: {item, µs it was queued, ...}: fewer items than asked when the list ran out
return lease_list(ARGV[3], ARGV[4], tonumber(ARGV[5]))
