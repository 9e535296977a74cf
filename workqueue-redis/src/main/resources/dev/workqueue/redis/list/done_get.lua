-- done_get: dones and the next get in one round trip: get.lua's get after done.lua's
-- dones.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 lease in µs, 4 token, 5 most items to lease, then the
--   leases done: 6 item, 7 its token, and more item, token pairs
-- Output: {how many leases the dones ended, then get's reply}
-- Invariants: should the get fail (a key of another type), the dones stay done.
-- @include done_list
-- @include lease_list

local lease_us, token, count = ARGV[3], ARGV[4], tonumber(ARGV[5])

local ended = done_list(6)
local reply = lease_list(lease_us, token, count)
table.insert(reply, 1, ended)
return reply
