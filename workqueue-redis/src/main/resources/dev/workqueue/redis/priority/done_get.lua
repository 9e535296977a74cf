-- done_get: the priority layout's done_get: get.lua's get after done.lua's dones (of this
-- folder).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 lease in µs, 4 token, 5 most items to lease,
--   6 starvation timeout in µs, or -1 for none, then the leases done: 7 item, 8 its
--   token, and more item, token pairs
-- Output: {how many leases the dones ended, then get's reply}
-- Invariants: should the get fail (a key of another type), the dones stay done.
-- @include done_priority
-- @include lease_priority

local lease_us, token, count, starvation = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])

local ended = done_priority(7)
local reply = lease_priority(lease_us, token, count, starvation)
table.insert(reply, 1, ended)
return reply
