-- dead_letter: moves a leased item that the codec cannot decode out of the queue, into
-- the dead-letter list, with a record saying why. Either layout. The list is bounded: it
-- keeps its newest ARGV[6] records, and expires ARGV[7] ms after its last one came, so
-- that a bad payload added again and again cannot fill the memory. Run again with the
-- same token, it finds the lease ended and writes nothing.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 token, 5 record, 6 most records kept, 7 time to
--   live of the list in ms
-- Output: 1 if moved, 0 if the token no longer held the item
-- Invariants: every key it may write is checked before the first write.
-- @include queue_keys
-- @include check
-- @include end_lease

local item, token, record, max_records, ttl_ms = ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6]), ARGV[7]

check(dirtyKey, processingKey, leasesKey, deadKey, prioritiesKey, grantsKey)
if not end_lease(item, token) then
  return 0
end
redis.call('HDEL', dirtyKey, item)
-- A priority queue's: the priorities it was handed out and added with.
redis.call('HDEL', prioritiesKey, 'h' .. item, 'd' .. item)
redis.call('RPUSH', deadKey, record)
redis.call('LTRIM', deadKey, 0 - max_records, -1)
redis.call('PEXPIRE', deadKey, ttl_ms)
return 1
