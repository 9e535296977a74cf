-- keep_given_up: keeps a given-up record of an item (a worker gave up on it), replacing
-- one of the same item, and trims the records to the queue's bound
-- (includes/give_up.lua). Either layout. Run again, it writes the same record, later.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 its failed attempts, 5 reason, 6 the holder
--   (the handle's id), 7 most records kept (at least 1), 8 their retention in µs
-- Output: 1
-- Invariants: the given-up keys are checked before the first write.
-- @include queue_keys
-- @include now_us
-- @include check
-- @include give_up

local item, attempts, reason, holder = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local keep, retention_us = tonumber(ARGV[7]), tonumber(ARGV[8])

check(givenUpKey, givenUpAtKey)
give_up(item, attempts, reason, holder, keep, retention_us, now_us())
return 1
