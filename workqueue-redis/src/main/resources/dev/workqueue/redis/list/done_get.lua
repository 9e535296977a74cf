-- done_get: a worker's done and its next get in one round trip: done.lua, then get.lua.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item done, 4 its token, 5 lease in µs, 6 token, 7 most
--   items to lease
-- Output: {done's reply, then get's}
-- Invariants: should the get fail (a key of another type), the done stays done.
-- @include done_list
-- @include lease_list

local done_item, done_token = ARGV[3], ARGV[4]
local lease_us, token, count = ARGV[5], ARGV[6], tonumber(ARGV[7])

local done = done_list(done_item, done_token)
local reply = lease_list(lease_us, token, count)
table.insert(reply, 1, done)
return reply
