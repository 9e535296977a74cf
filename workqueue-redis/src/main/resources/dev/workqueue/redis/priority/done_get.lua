-- done_get: the priority layout's done_get: done.lua, then get.lua (of this folder).
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item done, 4 its token, 5 lease in µs, 6 token, 7 most
--   items to lease, 8 starvation timeout in µs, or -1 for none
-- Output: {done's reply, then get's}
-- Invariants: should the get fail (a key of another type), the done stays done.
-- @include done_priority
-- @include lease_priority

local done_item, done_token = ARGV[3], ARGV[4]
local lease_us, token, count, starvation = ARGV[5], ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])

local done = done_priority(done_item, done_token)
local reply = lease_priority(lease_us, token, count, starvation)
table.insert(reply, 1, done)
return reply
