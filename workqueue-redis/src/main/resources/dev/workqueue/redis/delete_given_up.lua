-- delete_given_up: deletes an item's given-up record, whichever is kept or only the one given
-- up at a time (a re-add deletes the record it sent through, not one of a give-up since).
-- Either layout. Run again, it finds none.
-- Input: KEYS the queue's; ARGV 1 now and 2 channel as every queue script's
--   (includes/queue_keys.lua), 3 item, 4 the records' retention in µs, 5 the µs the record
--   to delete was given up at, '' for whichever is kept
-- Output: 1 if the queue kept a record of the item (one past its retention is deleted
-- too, and does not count), else 0; 0 too, deleting nothing, for a record given up at
-- another time than ARGV 5
-- Invariants: the given-up keys are checked before the first write; only frees memory.
-- @include queue_keys
-- @include now_us
-- @include check

local item, retention_us, seen_us = ARGV[3], tonumber(ARGV[4]), ARGV[5]

check(givenUpKey, givenUpAtKey)
local at = redis.call('ZSCORE', givenUpAtKey, item)
-- Compared as the views read the time: a reply's number is the score cut to an integer.
if not at or (seen_us ~= '' and math.floor(tonumber(at)) ~= tonumber(seen_us)) then
  return 0
end
redis.call('ZREM', givenUpAtKey, item)
redis.call('HDEL', givenUpKey, item)
if tonumber(at) > now_us() - retention_us then
  return 1
end
return 0
