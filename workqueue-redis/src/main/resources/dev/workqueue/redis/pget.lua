-- pget: the priority layout's get (see get.lua): leases up to ARGV[5] items, each the
-- item ready longest if it has been ready longer than the starvation timeout, else the
-- first of the highest priority.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 lease in µs, 4 token, 5 most items to lease, 6 starvation timeout in µs, or -1
-- for none
-- Reply: {item, µs it was queued, the priority it is handed out with, ...}: fewer items
-- than asked when none is left
return lease_priority(ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]))
