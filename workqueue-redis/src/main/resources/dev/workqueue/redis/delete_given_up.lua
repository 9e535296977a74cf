-- delete_given_up: deletes an item's given-up record. Either layout. Run again, it finds
-- none.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 the records' retention in µs
-- Output: 1 if the queue kept a record of the item (one past its retention is deleted
-- too, and does not count), else 0
-- Invariants: the given-up keys are checked before the first write; only frees memory.
-- @include queue_keys
-- @include now_us
-- @include check

local item, retention_us = ARGV[3], tonumber(ARGV[4])

check(givenUpKey, givenUpAtKey)
local at = redis.call('ZSCORE', givenUpAtKey, item)
if not at then
  return 0
end
redis.call('ZREM', givenUpAtKey, item)
redis.call('HDEL', givenUpKey, item)
if tonumber(at) > now_us() - retention_us then
  return 1
end
return 0
