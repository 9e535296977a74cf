-- pdone_get: the priority layout's done_get: pdone.lua, then pget.lua.
-- KEYS: the queue's (see prelude.lua)
-- ARGV: 3 item done, 4 its token, 5 lease in µs, 6 token, 7 most items to lease,
-- 8 starvation timeout in µs, or -1 for none
-- Should the get fail (a key of another type), the done stays done.
-- Reply: {pdone's reply, then pget's}
local done = done_priority(ARGV[3], ARGV[4])
local reply = lease_priority(ARGV[5], ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8]))
table.insert(reply, 1, done)
return reply
