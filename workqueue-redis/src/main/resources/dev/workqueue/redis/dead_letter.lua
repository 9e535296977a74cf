-- dead_letter: moves a leased item that the codec cannot decode out of the queue: ends
-- its lease and keeps a given-up record of it (0 attempts, with why it could not be
-- decoded), bounded as every given-up record is (includes/give_up.lua); with a bound of
-- 0 records, it only ends the lease. Either layout. Run again with the same token, it
-- finds the lease ended and writes nothing.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 token, 5 reason, 6 the holder (the handle's
--   id), 7 most records kept, 8 their retention in µs
-- Output: 1 if moved, 0 if the token no longer held the item
-- Invariants: every key it may write is checked before the first write.
-- @include queue_keys
-- @include now_us
-- @include check
-- @include end_lease
-- @include give_up

local item, token, reason, holder = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local keep, retention_us = tonumber(ARGV[7]), tonumber(ARGV[8])

check(dirtyKey, processingKey, leasesKey, prioritiesKey, grantsKey, givenUpKey, givenUpAtKey)
if not end_lease(item, token) then
  return 0
end
-- An add while it was held is given up with it (as the PostgreSQL store's row): its dirty
-- mark goes, and the per-item fields: a priority queue's priorities it was handed out and
-- added with, and the trace contexts of that add.
redis.call('HDEL', dirtyKey, item)
redis.call('HDEL', prioritiesKey, 'h' .. item, 'd' .. item, 't' .. item)
if keep > 0 then
  give_up(item, 0, reason, holder, keep, retention_us, now_us())
end
return 1
