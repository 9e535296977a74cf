-- dead_letter: moves a leased item that the codec cannot decode out of the queue, into
-- the dead-letter list, with a record saying why. Either layout.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 token, 5 record
-- Output: 1 if moved, 0 if the token no longer held the item
-- Invariants: every key it may write is checked before the first write.
-- @include queue_keys
-- @include check
-- @include end_lease

local item, token, record = ARGV[3], ARGV[4], ARGV[5]

check(dirtyKey, processingKey, leasesKey, deadKey, prioritiesKey)
if not end_lease(item, token) then
  return 0
end
redis.call('HDEL', dirtyKey, item)
-- A priority queue's: the priorities it was handed out and added with.
redis.call('HDEL', prioritiesKey, 'h' .. item, 'd' .. item)
redis.call('RPUSH', deadKey, record)
return 1
