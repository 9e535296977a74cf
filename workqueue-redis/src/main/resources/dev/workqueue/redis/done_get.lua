-- done_get: a worker's done and its next get in one round trip: done.lua, then get.lua.
-- Should the get fail (a key of another type), the done stays done.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item done, 4 its token, 5 lease in µs, 6 token, 7 most items to lease
-- Reply: {done's reply, then get's}
local done = done_list(ARGV[3], ARGV[4])
local reply = lease_list(ARGV[5], ARGV[6], tonumber(ARGV[7]))
table.insert(reply, 1, done)
return reply
